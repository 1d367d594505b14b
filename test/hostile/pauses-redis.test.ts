/**
 * A 429's pause through a RedisStore: written in the hash for every process, a minute at a time when it is
 * longer, and ended for every process by `resume()`, `setLimits` or a later response that showed room, on any
 * one limiter on the key. Real time: Redis runs on its own clock.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore } from "../../src/redis/index.js";
import { ADAPTERS, describeRedis, rawRedis, redisUrl, sleep } from "../redis/helpers.js";

const ROOM = {
  "x-ratelimit-limit-requests": "600",
  "x-ratelimit-remaining-requests": "590",
  "x-ratelimit-limit-tokens": "1000000",
  "x-ratelimit-remaining-tokens": "990000",
};

describeRedis("pauses through a RedisStore", () => {
  const raw = rawRedis();

  /** Two limiters on one fresh key, as two replicas would be. */
  async function replicas(): Promise<{ a: Limiter; b: Limiter; key: string; close(): Promise<void> }> {
    const connection = await ADAPTERS.ioredis(redisUrl!);
    const key = `pauses:${randomUUID()}`;
    const make = () =>
      new Limiter({
        rpm: 600,
        tpm: 1_000_000,
        provider: "openai",
        store: new RedisStore({ client: connection.client, key }),
      });
    const a = make();
    const b = make();
    return {
      a,
      b,
      key,
      close: async () => {
        await Promise.all([a.close(), b.close()]);
        await connection.close();
      },
    };
  }

  /** Whether `limiter` admits a call within `ms`. */
  async function admitsWithin(limiter: Limiter, ms: number): Promise<boolean> {
    const call = limiter.acquire(10, { maxWaitMs: ms }).then(
      (r) => (r.release(), true),
      () => false,
    );
    return call;
  }

  /** Ms left of dimension `name`'s pause in the hash (Redis' clock), 0 for none. */
  async function pauseLeft(key: string, name: string): Promise<number> {
    const [until, [s, us]] = await Promise.all([raw.hget(`{${key}}:b`, `${name}:p`), raw.time()]);
    return until === null ? 0 : Math.max(0, Number(until) - (Number(s) * 1000 + Number(us) / 1000));
  }

  it("resume() on one limiter lifts the pause another limiter on the key sees", async () => {
    const { a, b, key, close } = await replicas();
    try {
      a.sync({ "retry-after": "86400" }, { status: 429 });
      await a.onIdle();
      await sleep(50); // the pause's write
      expect(await pauseLeft(key, "rpm")).toBeGreaterThan(50_000);
      expect(await admitsWithin(b, 300)).toBe(false);
      const waiting = b.acquire(10);
      a.resume();
      const started = performance.now();
      (await waiting).release();
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(await pauseLeft(key, "rpm")).toBe(0);
    } finally {
      await close();
    }
  });

  it("a long hint is written a minute at a time; a later success on the limiter that saw it ends it for all", async () => {
    const { a, b, key, close } = await replicas();
    try {
      a.sync({ "retry-after": "13262" }, { status: 429, body: { error: { type: "tokens" } } });
      await sleep(50);
      const left = await pauseLeft(key, "tpm");
      expect(left).toBeGreaterThan(55_000);
      expect(left).toBeLessThanOrEqual(60_000);
      expect(await pauseLeft(key, "rpm")).toBe(0);
      expect(await admitsWithin(b, 200)).toBe(false);
      a.sync(ROOM, { status: 200 });
      await sleep(50);
      expect(await pauseLeft(key, "tpm")).toBe(0);
      expect(await admitsWithin(b, 1_000)).toBe(true);
    } finally {
      await close();
    }
  });

  it("setLimits on one limiter lifts the pause for the others", async () => {
    const { a, b, key, close } = await replicas();
    try {
      a.sync({ "retry-after": String(366 * 86_400) }, { status: 429 });
      await sleep(50);
      expect(await admitsWithin(b, 200)).toBe(false);
      a.setLimits({ rpm: 500 });
      await sleep(50);
      expect(await pauseLeft(key, "rpm")).toBe(0);
      expect(await admitsWithin(b, 1_000)).toBe(true);
    } finally {
      await close();
    }
  });
});
