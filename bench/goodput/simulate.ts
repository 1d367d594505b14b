/** One workload through one kind of client against a fresh simulated provider, on virtual time. */
import { createProvider, type CallRecord } from "../../src/testing/index.js";
import type { LatencyInput } from "../../src/testing/options.js";
import { onVirtualTime } from "../../src/simulate/virtual-time.js";
import { latencyMs } from "../../examples/demo/workload.js";
import { arrivalDelays } from "./arrivals.js";
import type { Provider, Send } from "./contenders.js";
import { sleep } from "./retry.js";
import type { Workload } from "./workloads.js";

/** Where the run starts on the provider's clock: off every minute and 10 s boundary. */
export const PHASE_MS = 25_500;

/** How far each `tickAsync` moves; timers inside a step still fire at their own instants. */
const STEP_MS = 1_000;
/** A run still waiting on calls this long after its start is cut off: they count as not served. */
export const CUT_OFF_MS = 6 * 3_600_000;

/** One call a client made, as the client saw it. */
export interface Attempt {
  readonly client: number;
  /** Responses the client had back when it made this call. */
  readonly responsesBefore: number;
  readonly status: 200 | 429;
}

export interface Run {
  /** Every attempt the provider saw, times relative to the workload's start. */
  readonly calls: readonly CallRecord[];
  /** Every attempt, in the order their responses came back. */
  readonly attempts: readonly Attempt[];
  /**
   * Per job: whether it was served, and when its client was done with it (relative; `undefined`: still waiting at the
   * cut-off).
   */
  readonly outcomes: readonly { readonly served: boolean; readonly doneAt: number | undefined }[];
}

/**
 * Creates the provider, then each of the `workload.clients` clients with
 * `clientFor` when its first job arrives (inside virtual time, so their timers
 * are virtual; a client first used later is a process started later), sends
 * each job at its arrival time, and waits for all of them or the cut-off.
 */
export function simulate(workload: Workload, clientFor: (index: number) => Send): Promise<Run> {
  return onVirtualTime(() => ({ done: run(workload, clientFor) }), STEP_MS, PHASE_MS + CUT_OFF_MS + STEP_MS);
}

/** The body of `simulate`, on the virtual clock. */
async function run(workload: Workload, clientFor: (index: number) => Send): Promise<Run> {
  await sleep(PHASE_MS);
  const { quota, window, dialect, stampHeaders, concurrency, batch } = workload.provider;
  const delayOf = arrivalDelays(workload);
  const provider: Provider = createProvider({
    ...quota,
    window,
    dialect,
    latencyMs: batch === undefined ? latencyMs : stretched(batch),
    arrivalDelayMs: (call) => delayOf(call.index),
    ...(stampHeaders === undefined ? {} : { stampHeaders }),
    ...(concurrency === undefined ? {} : { concurrency }),
  });
  const clients: (Send | undefined)[] = [];
  const views: Provider[] = [];
  const attempts: Attempt[] = [];
  const start = performance.now();
  const since = () => performance.now() - start;
  const outcomes = workload.jobs.map(() => ({ served: false, doneAt: undefined as number | undefined }));
  const pending: Promise<void>[] = [];
  // One arrival timer at a time: fake timers scan every pending timer on each tick.
  for (const [i, job] of workload.jobs.entries()) {
    if (job.at > since()) await sleep(job.at - since());
    if (job.client >= workload.clients) throw new Error(`workload ${workload.id}: no client ${job.client}`);
    const send = (clients[job.client] ??= clientFor(job.client));
    const view = (views[job.client] ??= watched(provider, job.client, attempts));
    pending.push(
      send(job, view).then((served) => {
        outcomes[i] = { served, doneAt: since() };
      }),
    );
  }
  await Promise.race([Promise.all(pending), sleep(CUT_OFF_MS - since())]);
  const calls = provider.stats().calls.map((c) => ({
    ...c,
    sentAt: c.sentAt - start,
    receivedAt: c.receivedAt - start,
    ...(c.completedAt === undefined ? {} : { completedAt: c.completedAt - start }),
  }));
  return { calls, attempts, outcomes };
}

/**
 * A self-hosted server's latency: the demo's `300 + 15 × answer tokens` ms while at most `batch` calls are in flight,
 * stretched by inFlight / batch beyond (its throughput shared among them), decided at admission.
 */
function stretched(batch: number): (call: LatencyInput) => number {
  return (call) => latencyMs(call) * Math.max(1, call.inFlight / batch);
}

/** The provider as one client sees it: each call it makes is noted with the responses it had back by then. */
function watched(provider: Provider, client: number, attempts: Attempt[]): Provider {
  let responses = 0;
  return {
    ...provider,
    call(request) {
      const responsesBefore = responses;
      return provider.call(request).then((result) => {
        responses += 1;
        attempts.push({ client, responsesBefore, status: result.status });
        return result;
      });
    },
  };
}
