/** One workload through one kind of client against a fresh simulated provider, on virtual time. */
import { createProvider, type CallRecord } from "../../src/testing/index.js";
import { onVirtualTime } from "../../examples/demo/virtual-time.js";
import { latencyMs } from "../../examples/demo/workload.js";
import type { Send } from "./contenders.js";
import { sleep } from "./retry.js";
import type { Workload } from "./workloads.js";

/** Where the run starts on the provider's clock: off every minute and 10 s boundary. */
export const PHASE_MS = 25_500;

/** How far each `tickAsync` moves; timers inside a step still fire at their own instants. */
const STEP_MS = 1_000;
/** A run still going after this much simulated time has hung. */
const GIVE_UP_MS = 6 * 3_600_000;

export interface Run {
  /** Every attempt the provider saw, times relative to the workload's start. */
  readonly calls: readonly CallRecord[];
  /** Per job: whether it was served, and when its client was done with it (relative). */
  readonly outcomes: readonly { readonly served: boolean; readonly doneAt: number }[];
}

/**
 * Creates the provider and `workload.clients` clients with `clientFor` (inside
 * virtual time, so their timers are virtual), sends each job at its arrival
 * time, and waits for all of them.
 */
export function simulate(workload: Workload, clientFor: (index: number) => Send): Promise<Run> {
  return onVirtualTime(() => ({ done: run(workload, clientFor) }), STEP_MS, GIVE_UP_MS);
}

/** The body of `simulate`, on the virtual clock. */
async function run(workload: Workload, clientFor: (index: number) => Send): Promise<Run> {
  await sleep(PHASE_MS);
  const { quota, window, dialect } = workload.provider;
  const provider = createProvider({ ...quota, window, dialect, latencyMs });
  const clients = Array.from({ length: workload.clients }, (_, i) => clientFor(i));
  const start = performance.now();
  const since = () => performance.now() - start;
  const pending: Promise<{ served: boolean; doneAt: number }>[] = [];
  // One arrival timer at a time: fake timers scan every pending timer on each tick.
  for (const job of workload.jobs) {
    if (job.at > since()) await sleep(job.at - since());
    const send = clients[job.client];
    if (!send) throw new Error(`workload ${workload.id}: no client ${job.client}`);
    pending.push(send(job, provider).then((served) => ({ served, doneAt: since() })));
  }
  const outcomes = await Promise.all(pending);
  const calls = provider.stats().calls.map((c) => ({
    ...c,
    receivedAt: c.receivedAt - start,
    ...(c.completedAt === undefined ? {} : { completedAt: c.completedAt - start }),
  }));
  return { calls, outcomes };
}
