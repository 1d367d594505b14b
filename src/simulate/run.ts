import { lowerBound } from "./bound.js";
import { LimitedClient, NaiveClient, replay, type Client } from "./clients.js";
import type { SimulateOptions } from "./options.js";
import { summarize } from "./summary.js";
import type { SimulationResult, SimulationRun, SimulationSample } from "./types.js";
import { checkSimulation, type CheckedOptions } from "./validate.js";
import { onVirtualTime } from "./virtual-time.js";
import type { WorkloadCall } from "./workload.js";

const SAMPLES = 300;
const MIN_SAMPLE_MS = 100;
const HOUR_MS = 3_600_000;

type Buckets = Pick<SimulationSample, "levels" | "capacities">;
const NO_BUCKETS: Buckets = { levels: {}, capacities: {} };

/** Samples a client every step of virtual time, the first at 0. */
function sampler(
  calls: readonly WorkloadCall[],
  client: Client,
  buckets: () => Buckets,
  waiting: () => number,
): (t: number) => SimulationSample {
  let arrived = 0;
  return (t) => {
    while (arrived < calls.length && calls[arrived]!.at <= t) arrived++;
    const { tally, provider } = client;
    // Counted in calls as demanding as the most demanding one held, and never beyond the workload.
    let waitingRoom = tally.held.size === 0 ? 0 : calls.length;
    for (const { call } of tally.held) waitingRoom = Math.min(waitingRoom, provider.roomFor(call));
    return {
      t,
      arrived,
      sent: tally.sent,
      rejected: tally.rejected,
      served: tally.served,
      waiting: waiting(),
      inFlight: tally.inFlight,
      ...buckets(),
      providerLevels: provider.levels(),
      waitingRoom,
    };
  };
}

/** One run on virtual time: replays the workload through `client`, sampling it every `sampleMs`. */
async function runOn(
  calls: readonly WorkloadCall[],
  options: CheckedOptions,
  make: () => { client: Client; buckets: () => Buckets; waiting: () => number },
  run: "limiter" | "no limiter",
  sampleMs: number,
  limitMs: number,
  estimatedEndMs: number,
): Promise<SimulationRun> {
  const samples: SimulationSample[] = [];
  const outcomes = await onVirtualTime(
    () => {
      const { client, buckets, waiting } = make();
      const sample = sampler(calls, client, buckets, waiting);
      samples.push(sample(0));
      return {
        done: replay(calls, client),
        onStep: (t) => {
          samples.push(sample(t));
          options.onProgress?.({ run, simulatedMs: t, estimatedEndMs });
        },
      };
    },
    sampleMs,
    limitMs,
  );
  return { summary: summarize(calls, outcomes, samples.at(-1)!), samples, outcomes };
}

/**
 * Runs a workload against the in-process simulator (`createProvider`) on virtual time, twice,
 * each on a fresh simulated key with the given budgets: through a `Limiter` configured with
 * the same budgets (`limiter.run`, 429s retried), and from a client with no limiter that sends
 * each call on arrival and, after a 429, again once its `retry-after` has passed. Samples
 * both runs every `sampleMs`: the limiter's bucket levels (`limiter.snapshot()`), calls waiting,
 * attempts sent, served and answered 429. Minutes of traffic take seconds of wall time.
 *
 * Virtual time fakes the global timers, `Date` and `performance` while a run lasts (with
 * `@sinonjs/fake-timers`, which must be installed: `npm i -D @sinonjs/fake-timers`); do not
 * run it under other fake timers. {@link renderReport} draws the result as an HTML page.
 *
 * @throws TypeError or RangeError for a bad workload or option, before anything runs.
 */
export async function simulate(workload: readonly WorkloadCall[], options: SimulateOptions): Promise<SimulationResult> {
  const checked = checkSimulation(workload, options);
  const bound = lowerBound(workload, checked.budgets, checked.latencyMs);
  const sampleMs =
    checked.sampleMs ?? Math.max(MIN_SAMPLE_MS, Math.round(bound.ms / SAMPLES / MIN_SAMPLE_MS) * MIN_SAMPLE_MS);
  const limitMs = checked.limitMs ?? 10 * bound.ms + HOUR_MS;
  const warnings: string[] = [];
  const limiter = await runOn(
    workload,
    checked,
    () => {
      const client = new LimitedClient(checked, (warning) => warnings.push(warning.message));
      const buckets = (): Buckets => {
        const levels: Record<string, number> = {};
        const capacities: Record<string, number> = {};
        for (const [name, d] of Object.entries(client.limiter.snapshot().dimensions)) {
          levels[name] = d.available;
          capacities[name] = d.capacity;
        }
        return { levels, capacities };
      };
      return { client, buckets, waiting: () => client.limiter.snapshot().queued };
    },
    "limiter",
    sampleMs,
    limitMs,
    bound.ms,
  );
  const naive = await runOn(
    workload,
    checked,
    () => {
      const client = new NaiveClient(checked);
      return { client, buckets: () => NO_BUCKETS, waiting: () => client.tally.held.size };
    },
    "no limiter",
    sampleMs,
    limitMs,
    bound.ms,
  );
  return {
    budgets: checked.budgets,
    dialect: checked.dialect,
    sampleMs,
    workload: {
      calls: workload.length,
      lastArrivalMs: workload.at(-1)!.at,
      tokensUsed: workload.reduce((sum, c) => sum + c.prompt + c.completion, 0),
      tokensReserved: workload.reduce((sum, c) => sum + c.prompt + c.maxTokens, 0),
    },
    bound,
    limiter,
    naive,
    warnings,
  };
}
