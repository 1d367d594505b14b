/**
 * Credit on a real Redis: a caller admitting one request after another pays a
 * round trip per booking, not per admission, and gives back what it did not
 * use; callers in several processes admitting from credit never take more
 * than the bucket holds.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { CREDIT_REQUESTS } from "../../src/admission/credit.js";
import { Limiter, WaitTimeoutError, type CustomLimit } from "../../src/index.js";
import { RedisStore } from "../../src/redis/index.js";
import { ADAPTERS, counting, describeRedis, levels, redisUrl, timed } from "./helpers.js";
import { dim, layout } from "./layouts.js";

const HOUR = 3_600_000;

/**
 * `callers` loops of `rounds` admissions one after another on a fresh key of `limit` requests an hour (refill,
 * under 3 a second at 10,000, cannot hide a lost or a doubled credit): the round trips, the level left once the
 * limiter closed, and the ms until it was read (an upper bound on the refill meanwhile).
 */
async function loops(callers: number, rounds: number, limit: number) {
  const connection = await ADAPTERS.ioredis(redisUrl!);
  const key = `credit:${randomUUID()}`;
  const limits: Record<string, CustomLimit> = { requests: { unit: "requests", limit, windowMs: HOUR } };
  try {
    const client = counting(connection.client);
    const limiter = new Limiter({ limits, store: new RedisStore({ client, key }) });
    const { value: level, ms } = await timed(async () => {
      const loop = async (): Promise<void> => {
        for (let i = 0; i < rounds; i++) (await limiter.acquire(0)).release();
      };
      await Promise.all(Array.from({ length: callers }, loop));
      await limiter.close();
      const [left] = await levels(
        new RedisStore({ client: connection.client, key }),
        layout([dim("requests", limit, HOUR)]),
      );
      return left!;
    });
    return { calls: client.calls, level, refill: (ms * limit) / HOUR };
  } finally {
    await connection.close();
  }
}

describeRedis("credit on Redis", () => {
  it("a caller admitting one request after another books about once per 17, and gives back what it holds", async () => {
    const { calls, level, refill } = await loops(1, 200, 10_000);
    // A loaded machine may leave more than 1 ms between an admission and the next request: each such gap
    // costs a few bookings more.
    expect(calls).toBeLessThan(200 / 4);
    expect(calls).toBeGreaterThanOrEqual(Math.ceil(200 / (CREDIT_REQUESTS + 1)));
    expect(level).toBeGreaterThanOrEqual(10_000 - 200);
    expect(level).toBeLessThanOrEqual(10_000 - 200 + refill);
  });

  it("32 callers in a loop book each round with the next one ahead: a round trip per two rounds", async () => {
    const { calls, level, refill } = await loops(32, 40, 100_000);
    // One booking per round without credit; a loaded machine may break a run of rounds and cost a few more.
    expect(calls).toBeLessThan(40 * 0.75);
    expect(level).toBeGreaterThanOrEqual(100_000 - 32 * 40);
    expect(level).toBeLessThanOrEqual(100_000 - 32 * 40 + refill);
  });

  it("callers in two processes admitting from credit take no more than the bucket holds", async () => {
    const connections = await Promise.all([ADAPTERS.ioredis(redisUrl!), ADAPTERS.ioredis(redisUrl!)]);
    const key = `credit:${randomUUID()}`;
    const limits: Record<string, CustomLimit> = { requests: { unit: "requests", limit: 200, windowMs: 60_000 } };
    try {
      const limiters = connections.map(
        ({ client }) => new Limiter({ limits, store: new RedisStore({ client, key }), onWarning: () => {} }),
      );
      // Until the level is read: refill meanwhile is an upper bound on what the store may hold past the count.
      const { value, ms } = await timed(async () => {
        const counts = await Promise.all(
          limiters.map(async (limiter) => {
            let count = 0;
            for (let i = 0; i < 150; i++) {
              try {
                (await limiter.acquire(0, { maxWaitMs: 0 })).release();
                count++;
              } catch (error) {
                if (!(error instanceof WaitTimeoutError)) throw error;
              }
            }
            return count;
          }),
        );
        // Closing gives back the credit a process still holds.
        await Promise.all(limiters.map((limiter) => limiter.close()));
        const [level] = await levels(
          new RedisStore({ client: connections[0]!.client, key }),
          layout([dim("requests", 200)]),
        );
        return { counts, level: level! };
      });
      const { counts, level } = value;
      const total = counts[0]! + counts[1]!;
      const refill = (ms * 200) / 60_000;
      expect(total).toBeLessThanOrEqual(200 + refill);
      // Nothing lost or counted twice either (refill held back after the first draws from full may give less).
      expect(level).toBeGreaterThanOrEqual(200 - total - 1e-9);
      expect(level).toBeLessThanOrEqual(200 - total + refill + 1e-9);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  });
});
