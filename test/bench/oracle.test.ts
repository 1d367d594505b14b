import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { latencyMs } from "../../examples/demo/workload.js";
import { oracle } from "../../bench/goodput/oracle.js";
import { workloads, type Job, type Workload } from "../../bench/goodput/workloads.js";
import { createProvider } from "../../src/testing/index.js";
import { between, seededRandom } from "../../src/testing/random.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

function workload(quota: Workload["provider"]["quota"], jobs: readonly Job[], maxMs = 0): Workload {
  return {
    id: "test",
    title: "test",
    summary: "",
    provider: { quota, window: "bucket", dialect: "openai" },
    ...(maxMs > 0 ? { arrival: { maxMs, seed: 1 } } : {}),
    told: quota,
    clients: 1,
    jobs,
    columns: [],
  };
}

/** 101 one-token calls at once against 100 RPM. */
const burst = workload(
  { rpm: 100, tpm: 1_000_000 },
  Array.from({ length: 101 }, () => ({ at: 0, client: 0, prompt: 1, maxTokens: 1, actual: 1 })),
);

/** Calls of every size in bursts, TPM binding, reservations refunded at completion. */
function mixed(seed: number): Job[] {
  const random = seededRandom(seed);
  return Array.from({ length: 80 }, (_, i) => ({
    at: Math.floor(i / 20) * 15_000,
    client: 0,
    prompt: between(random, 100, 1_500),
    maxTokens: 1_000,
    actual: between(random, 0, 1_000),
  }));
}

/**
 * Sends the oracle's calls to the simulator at the instants it chose, each
 * reaching it `delays(i)` later, and counts the 429s once every call has
 * arrived. The provider starts full like the oracle's, so the bench's phase
 * does not matter on buckets.
 */
async function replay(load: Workload, sentAt: readonly number[], delays: (index: number) => number): Promise<number> {
  const provider = createProvider({
    ...load.provider.quota,
    latencyMs,
    arrivalDelayMs: (call) => delays(call.index),
    clock: time.clock,
  });
  load.jobs.forEach((job, i) => {
    const send = () => void provider.call({ prompt: job.prompt, maxTokens: job.maxTokens, actual: job.actual });
    // The oracle counts a refund due at s as back for a call sent at s: the send's
    // timer is made 1 ms before, after the completion's (made at least 300 ms
    // before), so at one instant the provider finishes what is due first.
    const at = sentAt[i] ?? 0;
    if (at < 1) setTimeout(send, at);
    else setTimeout(() => setTimeout(send, 1), at - 1);
  });
  await time.timers.tickAsync(Math.max(...sentAt) + (load.arrival?.maxMs ?? 0));
  return provider.stats().rejected;
}

describe("the goodput oracle", () => {
  it("gives the figures it gave before it knew of delays on the workloads without any", () => {
    const before = {
      "1": 182_699.999_999_999_53,
      "2": 607_035.4,
      "3": 209_539.800_000_000_02,
      "4": 385_437.2,
      "5": 158_190.000_000_000_2,
      "6": 157_800,
      "7": 237_200,
    };
    const now = Object.fromEntries(workloads.filter((w) => w.id in before).map((w) => [w.id, oracle(w).makespanMs]));
    expect(now).toEqual(before);
  });

  it("without arrival delays, sends the 101st call of a burst at 100 RPM 0.6 s after the first 100", () => {
    expect(oracle(burst).sentAt.slice(99)).toEqual([0, 600]);
  });

  it("safe for delays up to 400 ms, sends it 400 ms later: the provider's refill starts only once the burst has arrived", async () => {
    const late = { ...burst, arrival: { maxMs: 400, seed: 1 } };
    const run = oracle(late);
    expect(run.sentAt.slice(99)).toEqual([0, 1_000]);
    // One millisecond sooner, the burst arriving 400 ms late and the 101st at once: a 429.
    expect(await replay(late, run.sentAt, (i) => (i < 100 ? 400 : 0))).toBe(0);
    expect(await replay(late, [...run.sentAt.slice(0, 100), 999], (i) => (i < 100 ? 400 : 0))).toBe(1);
  });

  it("is never rejected, whatever delay in [0, D] each call draws", async () => {
    const maxMs = 400;
    const load = workload({ rpm: 30, tpm: 20_000 }, mixed(5), maxMs);
    const run = oracle(load);
    const delay = fc.oneof(fc.constant(0), fc.constant(maxMs), fc.integer({ min: 0, max: maxMs }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(delay, { minLength: load.jobs.length, maxLength: load.jobs.length }),
        async (delays) => {
          expect(await replay(load, run.sentAt, (i) => delays[i] ?? 0)).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("pays the delay once per drain from full, not on the sustained rate", () => {
    const jobs = Array.from({ length: 500 }, () => ({ at: 0, client: 0, prompt: 1, maxTokens: 1, actual: 1 }));
    // (500 − 100) / 100 per minute = 240 s, plus one delay.
    expect(oracle(workload({ rpm: 100, tpm: 1_000_000 }, jobs)).sentAt.at(-1)).toBe(240_000);
    expect(oracle(workload({ rpm: 100, tpm: 1_000_000 }, jobs, 400)).sentAt.at(-1)).toBeCloseTo(240_400, 6);
  });
});
