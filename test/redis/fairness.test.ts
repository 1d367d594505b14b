/**
 * Limiters on one key, each with a connection of its own (as processes have),
 * queue 150 calls each at the same moment. Each booking call's reply tells the
 * key's count of requests before it (the marks), so the calls, and what each
 * took, are put in the order Redis ran them: with equal demand, none runs
 * ahead of another by more than a batch, even one whose round trips take far
 * less time (before the store counted demand: gaps of 30 to 45 under load, and
 * several batches with one slow connection; 121 before batches were capped).
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore } from "../../src/redis/index.js";
import { ADAPTERS, describeRedis, redisUrl } from "./helpers.js";
import { recording, widestGap, type Take } from "./served-order.js";

const CALLS_EACH = 150;
// 120 at once, then 120/s: past the burst, so both the burst and the rate are shared (about 2 s in all).
const LIMIT = 120;
// The most one booking call takes of a bucket: an eighth of its capacity.
const BATCH = LIMIT / 8;

/** One limiter per entry of \`lagsMs\` (its booking replies that late) queue their calls at once: the widest gap. */
async function served(lagsMs: readonly number[]): Promise<number> {
  const key = `fair:${randomUUID()}`;
  const takes: Take[] = [];
  const connections = await Promise.all(lagsMs.map(() => ADAPTERS.ioredis(redisUrl!)));
  const limiters = connections.map(
    ({ client }, p) =>
      new Limiter({
        limits: { requests: { unit: "requests", limit: LIMIT, windowMs: 1_000 } },
        store: new RedisStore({ client: recording(client, p, takes, lagsMs[p]!), key }),
      }),
  );
  try {
    const start = performance.now();
    const makespans = await Promise.all(
      limiters.map(async (limiter) => {
        const calls = Array.from({ length: CALLS_EACH }, () => limiter.acquire(1).then((r) => r.release()));
        await Promise.all(calls);
        return Math.round(performance.now() - start);
      }),
    );
    const widest = widestGap(takes, lagsMs.length);
    console.info(`fairness (lags ${lagsMs.join("/")} ms): widest gap ${widest}, makespans ${makespans.join(" / ")} ms`);
    expect(takes.reduce((sum, t) => sum + t.taken, 0)).toBe(lagsMs.length * CALLS_EACH);
    return widest;
  } finally {
    await Promise.all(limiters.map((l) => l.close()));
    await Promise.all(connections.map((c) => c.close()));
  }
}

describeRedis("processes on one key with equal demand", () => {
  it("are served in step: two processes' counts never differ by more than a batch", { timeout: 20_000 }, async () => {
    expect(await served([0, 0])).toBeLessThanOrEqual(BATCH);
  });

  it("stay in step when one's round trips take 10 ms longer than the others'", { timeout: 20_000 }, async () => {
    expect(await served([0, 10, 0])).toBeLessThanOrEqual(BATCH);
  });
});
