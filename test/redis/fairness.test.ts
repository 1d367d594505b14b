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
import { between, seededRandom } from "../../src/testing/index.js";
import { delay as sleep } from "../../src/testing/delay.js";
import { ADAPTERS, describeRedis, redisUrl } from "./helpers.js";
import { recording, widestGap, type Take } from "./served-order.js";

const CALLS_EACH = 150;
// 120 at once, then 120/s: past the burst, so both the burst and the rate are shared (about 2 s in all).
const LIMIT = 120;
// The refunds workload: 2,400 tokens at once, then 2,400/s, each call reserving 40 (about 2 s in all, as refunds
// raise the rate).
const TOKENS = 2_400;
const RESERVED = 40;

/**
 * How each process's calls go: `requests` takes one request of a requests-only budget and gives it back at once;
 * `refunds` reserves 40 tokens of a tokens budget and settles 10 to 25 of them after 5 to 35 ms, so bookings for
 * later come due sooner than they were booked for.
 */
type Workload = "requests" | "refunds";

/**
 * One batch, an eighth of the bucket, in whole calls: 15 requests, or 300 tokens (7.5 calls of 40, so counts of
 * whole calls may stand 8 apart).
 */
const BATCH = { requests: LIMIT / 8, refunds: Math.ceil(TOKENS / 8 / RESERVED) } as const;

/** One limiter per entry of `lagsMs` (its booking replies that late) queue their calls at once: the widest gap. */
async function served(lagsMs: readonly number[], workload: Workload = "requests"): Promise<number> {
  const key = `fair:${randomUUID()}`;
  const takes: Take[] = [];
  const connections = await Promise.all(lagsMs.map(() => ADAPTERS.ioredis(redisUrl!)));
  const limiters = connections.map(
    ({ client }, p) =>
      new Limiter({
        limits:
          workload === "requests"
            ? { requests: { unit: "requests", limit: LIMIT, windowMs: 1_000 } }
            : { tokens: { unit: "tokens", limit: TOKENS, windowMs: 1_000 } },
        store: new RedisStore({ client: recording(client, p, takes, lagsMs[p]!), key }),
      }),
  );
  const random = seededRandom(lagsMs.length);
  const call = async (limiter: Limiter): Promise<void> => {
    if (workload === "requests") return (await limiter.acquire(1)).release();
    const reservation = await limiter.acquire(RESERVED);
    await sleep(between(random, 5, 35));
    reservation.settle(Math.round(between(random, 10, 25)));
    reservation.release();
  };
  try {
    const start = performance.now();
    const makespans = await Promise.all(
      limiters.map(async (limiter) => {
        await Promise.all(Array.from({ length: CALLS_EACH }, () => call(limiter)));
        return Math.round(performance.now() - start);
      }),
    );
    const widest = widestGap(takes, lagsMs.length);
    console.info(
      `fairness, ${workload} (lags ${lagsMs.join("/")} ms): widest gap ${widest}, makespans ${makespans.join(" / ")} ms`,
    );
    expect(takes.reduce((sum, t) => sum + t.taken, 0)).toBe(lagsMs.length * CALLS_EACH);
    return widest;
  } finally {
    await Promise.all(limiters.map((l) => l.close()));
    await Promise.all(connections.map((c) => c.close()));
  }
}

describeRedis("processes on one key with equal demand", () => {
  it("are served in step: two processes' counts never differ by more than a batch", { timeout: 20_000 }, async () => {
    expect(await served([0, 0])).toBeLessThanOrEqual(BATCH.requests);
  });

  it("stay in step when one's round trips take 10 ms longer than the others'", { timeout: 20_000 }, async () => {
    expect(await served([0, 10, 0])).toBeLessThanOrEqual(BATCH.requests);
  });

  it(
    "stay in step under refunds, which bring bookings for later due before their processes hear of it",
    { timeout: 20_000 },
    async () => {
      expect(await served([0, 0, 0], "refunds")).toBeLessThanOrEqual(BATCH.refunds);
    },
  );
});
