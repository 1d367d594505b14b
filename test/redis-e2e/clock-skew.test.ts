/**
 * A host whose wall clock is 5 s fast. Buckets are timed by Redis `TIME` and
 * the monotonic clock, so the skew must not change how the quota is shared;
 * Anthropic's RFC 3339 resets are read against the response's `Date`, so it
 * must not change them either.
 */
import { randomUUID } from "node:crypto";
import { expect, it, onTestFinished } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import type { Limiter } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import { describeRedis, redisUrl } from "../redis/helpers.js";
import { redisBackend } from "./backends.js";
import type { WorkerJob } from "./job.js";
import { overdraft } from "./model.js";
import { stopwatch } from "./stopwatch.js";
import { runWorkers } from "./workers.js";

const SKEW_MS = 5_000;
const skewed: Clock = { now: () => performance.now(), wallNow: () => Date.now() + SKEW_MS };

describeRedis("a wall clock 5 s off", () => {
  const backend = redisBackend("ioredis");

  it("shares one key with a correct limiter without over-admitting", async () => {
    const r = { limit: 4, windowMs: 1_000, capacity: 4 };
    const key = `e2e:${randomUUID()}`;
    const [fast, right] = await Promise.all([
      backend.limiterOn(key, { limits: { r: { unit: "requests", ...r } }, clock: skewed }),
      backend.limiterOn(key, { limits: { r: { unit: "requests", ...r } } }),
    ]);
    const watch = stopwatch();
    const admit = async (limiter: Limiter): Promise<number> => {
      (await limiter.acquire(0)).release();
      return watch.ms();
    };
    // 12 calls, 4 of them in the burst: 2 s of refill, shared between the two.
    const times = await Promise.all(Array.from({ length: 12 }, (_, i) => admit(i % 2 === 0 ? fast! : right!)));
    expect(
      overdraft(
        times.map((at) => ({ at, costs: { r: 1 } })),
        { r },
      ),
    ).toBeUndefined();
    expect(Math.max(...times)).toBeLessThan(2_000 + 1_000);
  });

  it("reads Anthropic's RFC 3339 resets by the response's Date, not by its own clock", async () => {
    const provider = createProvider({ dialect: "anthropic", itpm: 60_000 });
    const limiter = await backend.limiter({ itpm: 60_000, otpm: 60_000, clock: skewed, provider: "anthropic" });
    // Half the input bucket: full again 30 s from now, as the provider's clock says.
    const { headers } = await provider.call({ prompt: 30_000, maxTokens: 1 });
    expect(limiter.sync(headers).dimensions.itpm?.resetMs).toBeGreaterThan(28_000);
    expect(limiter.sync(headers).dimensions.itpm?.resetMs).toBeLessThanOrEqual(31_000);
    // Control: without the Date header the skewed clock is all there is, and the reading is 5 s short.
    const { date: _, ...undated } = headers;
    expect(limiter.sync(undated).dimensions.itpm?.resetMs).toBeLessThan(26_000);
  });

  it(
    "a process with Date.now() 5 s fast and a correct one share one provider's quota: no 429s",
    { timeout: 60_000 },
    async () => {
      // Requests bind (120 at once, then 2/s); input tokens do not, but stay used long enough
      // that the last reset lies more than the skew ahead, even on a loaded machine whose run takes 20 s
      // (6,000 ITPM refilled nearly all of the 2,000 used then: CI on Node 24 saw a reset 1 s ahead).
      const quota = { rpm: 120, itpm: 3_000, otpm: 40_000 };
      const provider = createProvider({ ...quota, dialect: "anthropic", latencyMs: 5, seed: 3 });
      const server = await provider.listen();
      onTestFinished(() => server.close());
      const job: WorkerJob = {
        redisUrl,
        key: `e2e:${randomUUID()}`,
        providerUrl: server.url,
        dialect: "anthropic",
        limits: quota,
        calls: 66,
        maxTokens: 150,
      };
      const run = await runWorkers([{ job, skewMs: SKEW_MS }, { job }]);
      const stats = provider.stats();
      expect(stats.rejected).toBe(0);
      expect(stats.served).toBe(132);
      const [fast, right] = run.reports;
      // The skew took effect in the worker, and not in the other one.
      expect(fast!.wallAtGo - run.wallAtGo).toBeGreaterThan(SKEW_MS - 500);
      expect(Math.abs(right!.wallAtGo - run.wallAtGo)).toBeLessThan(500);
      // Its reading of the last reset agrees with the provider's own reset - date.
      const { resetMs, reset, date } = fast!.lastReset!;
      const truth = Date.parse(reset) - Date.parse(date);
      expect(truth).toBeGreaterThan(SKEW_MS + 1_000);
      expect(Math.abs(resetMs! - truth)).toBeLessThanOrEqual(1_000);
    },
  );
});
