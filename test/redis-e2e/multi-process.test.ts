/**
 * Three Node processes share one quota through one Redis key, against one
 * simulated provider (served over HTTP from this process) that meters the
 * quota exactly as configured: nothing may come back 429, and every call must
 * complete. The same workload without the shared store is the control: each
 * process then admits its share of the burst on its own, and the provider rejects.
 */
import { randomUUID } from "node:crypto";
import { expect, it, onTestFinished } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { describeRedis, redisUrl } from "../redis/helpers.js";
import type { WorkerJob } from "./job.js";
import { runWorkers } from "./workers.js";

const QUOTA = { rpm: 120, tpm: 20_000 };
const PROCESSES = 3;
// 132 calls of ~166 tokens: past both bursts (120 requests, ~120 calls of tokens), so the
// last dozen wait for refill (about 6 s) and the rate, not the burst, is what is shared.
const CALLS_EACH = 44;

async function served(): Promise<{ url: string; provider: ReturnType<typeof createProvider> }> {
  const provider = createProvider({ ...QUOTA, latencyMs: 5, seed: 7 });
  const server = await provider.listen();
  onTestFinished(() => server.close());
  return { url: server.url, provider };
}

function jobs(providerUrl: string, shared: string | undefined): WorkerJob[] {
  const key = `e2e:${randomUUID()}`;
  const job: WorkerJob = {
    redisUrl: shared,
    key,
    providerUrl,
    dialect: "openai",
    limits: QUOTA,
    calls: CALLS_EACH,
    maxTokens: 150,
  };
  return Array.from({ length: PROCESSES }, () => job);
}

describeRedis("processes sharing one Redis key", () => {
  it("keep the provider free of 429s, and every call completes", { timeout: 60_000 }, async () => {
    const { url, provider } = await served();
    const { reports } = await runWorkers(jobs(url, redisUrl).map((job) => ({ job })));
    const stats = provider.stats();
    expect(stats.rejected).toBe(0);
    expect(stats.served).toBe(PROCESSES * CALLS_EACH);
    expect(reports.flatMap((r) => r.statuses)).toEqual(Array(PROCESSES * CALLS_EACH).fill(200));
  });

  it("control: the same workload with a limiter per process draws 429s", { timeout: 60_000 }, async () => {
    const { url, provider } = await served();
    // Each process sure the whole key is its own: on defaults, the start-up probe may learn the others'
    // share from the first headers in time, which is the limiter doing well, not a control.
    await runWorkers(jobs(url, undefined).map((job) => ({ job: { ...job, initial: "full" as const } })));
    expect(provider.stats().rejected).toBeGreaterThan(0);
  });
});
