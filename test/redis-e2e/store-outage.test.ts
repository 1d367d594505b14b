/**
 * Redis crashes (SIGKILL) mid-run and comes back empty on the same port, once
 * per failure policy. While it is down the policy decides what is admitted;
 * the limiter reports a typed StoreUnavailableError once, and its bookings
 * reach Redis again when it returns. Each test has a server of its own.
 */
import { Redis } from "ioredis";
import { describe, expect, it, onTestFinished } from "vitest";
import { Limiter } from "../../src/index.js";
import { ioredis, RedisStore, StoreUnavailableError } from "../../src/redis/index.js";
import type { StoreFailurePolicy } from "../../src/store/shared-store.js";
import { redisServerAvailable } from "../../examples/shared/redis-server.js";
import { sleep } from "../redis/helpers.js";
import { killableRedis, type KillableRedis } from "./killable-redis.js";
import { overdraft } from "./model.js";
import { stopwatch, type Stopwatch } from "./stopwatch.js";

const RATE = { limit: 10, windowMs: 1_000, capacity: 10 };
const KEY = "outage";
/** Requests fired right after the crash: three times the burst. */
const FIRED = 30;
const DOWN_MS = 1_500;

interface Setup {
  readonly redis: KillableRedis;
  readonly limiter: Limiter;
  readonly warnings: Error[];
}

async function setup(onError: StoreFailurePolicy): Promise<Setup> {
  const redis = await killableRedis();
  onTestFinished(() => redis.stop());
  // Fails fast while disconnected, as the store's docs advise, instead of queueing.
  const raw = new Redis(redis.url, { enableOfflineQueue: false });
  raw.on("error", () => {});
  await new Promise((resolve) => raw.once("ready", resolve));
  onTestFinished(() => raw.disconnect());
  const warnings: Error[] = [];
  const store = new RedisStore({ client: ioredis(raw), key: KEY, timeoutMs: 200, onError });
  const limiter = new Limiter({
    limits: { r: { unit: "requests", ...RATE } },
    store,
    onWarning: (w) => warnings.push(w),
  });
  onTestFinished(() => limiter.close());
  for (let i = 0; i < 3; i++) (await limiter.acquire(0)).release();
  return { redis, limiter, warnings };
}

/** Acquires `count` at once; `times` fills with admission times on `watch` as they come. */
function fire(limiter: Limiter, count: number, watch: Stopwatch): { times: number[]; all: Promise<void> } {
  const times: number[] = [];
  const all = Promise.all(
    Array.from({ length: count }, () =>
      limiter.acquire(0).then((r) => {
        times.push(watch.ms());
        r.release();
      }),
    ),
  ).then(() => undefined);
  return { times, all };
}

/** Makes one admission after another until the limiter's bookings show up in Redis again. */
async function bookingsReachRedis(limiter: Limiter, url: string, withinMs: number): Promise<void> {
  const raw = new Redis(url);
  raw.on("error", () => {});
  try {
    const deadline = performance.now() + withinMs;
    while ((await raw.exists(`{${KEY}}:b`)) === 0) {
      if (performance.now() > deadline) throw new Error(`no booking reached Redis within ${withinMs} ms of its return`);
      (await limiter.acquire(0)).release();
      await sleep(100);
    }
  } finally {
    raw.disconnect();
  }
}

function expectOneTypedWarning(warnings: readonly Error[]): void {
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toBeInstanceOf(StoreUnavailableError);
}

describe.skipIf(!redisServerAvailable())("Redis killed mid-run and restarted", () => {
  it(
    "fail-closed: nothing is admitted while it is down; every waiter goes through once it is back",
    { timeout: 30_000 },
    async () => {
      const { redis, limiter, warnings } = await setup("fail-closed");
      await redis.kill();
      const watch = stopwatch();
      const { times, all } = fire(limiter, FIRED, watch);
      await sleep(DOWN_MS);
      expect(times).toEqual([]);
      expect(limiter.snapshot().queued).toBe(FIRED);
      await redis.restart();
      const back = watch.ms();
      await all;
      expect(times).toHaveLength(FIRED);
      // The restarted server is empty (a full bucket): from then on the bucket holds.
      expect(
        overdraft(
          times.map((at) => ({ at: at - back, costs: { r: 1 } })),
          { r: RATE },
        ),
      ).toBeUndefined();
      expectOneTypedWarning(warnings);
      await bookingsReachRedis(limiter, redis.url, 5_000);
    },
  );

  it(
    "fail-open: everything is admitted while it is down; bookings resume when it is back",
    { timeout: 30_000 },
    async () => {
      const { redis, limiter, warnings } = await setup("fail-open");
      await redis.kill();
      const { times } = fire(limiter, FIRED, stopwatch());
      await sleep(DOWN_MS);
      // Three times the burst, none of it waiting for the bucket.
      expect(times).toHaveLength(FIRED);
      expectOneTypedWarning(warnings);
      await redis.restart();
      await bookingsReachRedis(limiter, redis.url, 8_000);
      expect(warnings).toHaveLength(1);
    },
  );

  it(
    "{ local: 1/2 }: about half the quota is admitted while it is down; bookings resume when it is back",
    { timeout: 30_000 },
    async () => {
      const { redis, limiter, warnings } = await setup({ local: 1 / 2 });
      await redis.kill();
      const watch = stopwatch();
      const { times } = fire(limiter, FIRED, watch);
      await sleep(DOWN_MS);
      const half = { limit: RATE.limit / 2, windowMs: RATE.windowMs, capacity: RATE.capacity / 2 };
      // Never more than half the quota (5 at once, then 5/s: 12 in 1.5 s); the full quota would allow 25.
      expect(
        overdraft(
          times.map((at) => ({ at, costs: { r: 1 } })),
          { r: half },
        ),
      ).toBeUndefined();
      expect(times.length).toBeGreaterThanOrEqual(7);
      expectOneTypedWarning(warnings);
      await redis.restart();
      await bookingsReachRedis(limiter, redis.url, 8_000);
      expect(warnings).toHaveLength(1);
    },
  );
});
