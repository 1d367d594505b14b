/**
 * Limiter-level behaviour that must not depend on where the buckets live: the
 * same scenarios run on the memory store and on Redis, on real time, with
 * windows of 1–3 s. Assertions are outcomes (order, never early, nothing
 * leaked); upper bounds on time carry generous slack for a loaded machine.
 */
import { expect, it } from "vitest";
import { LimiterClosedError, WaitTimeoutError, type Limiter, type Reservation } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import { sleep } from "../redis/helpers.js";
import type { Backend } from "./backends.js";
import { overdraft, type BucketSpec } from "./model.js";
import { stopwatch, type Stopwatch } from "./stopwatch.js";

/** How late an admission may come on a busy machine, beyond the model's time. */
const SLACK_MS = 1_000;
/** How early one may look: timer and clock granularity. */
const EARLY_MS = 5;

/** `limit` units per `windowMs`, holding `limit`. */
const bucket = (limit: number, windowMs: number): BucketSpec => ({ limit, windowMs, capacity: limit });

/** Acquires each estimate at once (FIFO order) and releases on admission; resolves to the admission times. */
function admitAll(limiter: Limiter, estimates: readonly number[], watch: Stopwatch): Promise<number[]> {
  return Promise.all(
    estimates.map((estimate) =>
      limiter.acquire(estimate).then((r) => {
        r.release();
        return watch.ms();
      }),
    ),
  );
}

/** The time `pending` was admitted (then released at once). */
async function admittedAt(pending: Promise<Reservation>, watch: Stopwatch): Promise<number> {
  const r = await pending;
  r.release();
  return watch.ms();
}

export function conformance(backend: Backend): void {
  it("admits a burst of the capacity at once, then one per refill interval, in FIFO order", async () => {
    const r = bucket(4, 2_000); // one unit per 500 ms
    const limiter = await backend.limiter({ limits: { r: { unit: "requests", ...r } } });
    const watch = stopwatch();
    const times = await admitAll(limiter, [0, 0, 0, 0, 0, 0], watch);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.max(...times.slice(0, 4))).toBeLessThan(500);
    expect(times[4]).toBeGreaterThanOrEqual(500 - EARLY_MS);
    expect(times[5]).toBeGreaterThanOrEqual(1_000 - EARLY_MS);
    expect(
      overdraft(
        times.map((at) => ({ at, costs: { r: 1 } })),
        { r },
      ),
    ).toBeUndefined();
    expect(times[5]).toBeLessThan(1_000 + SLACK_MS);
  });

  it("admits only when requests and tokens both have room, taking from both", async () => {
    const specs = { r: bucket(4, 2_000), t: bucket(1_000, 2_000) };
    const limiter = await backend.limiter({
      limits: { r: { unit: "requests", ...specs.r }, t: { unit: "tokens", ...specs.t } },
    });
    const watch = stopwatch();
    // Model: four at once (the requests run out), the fifth on requests at 500 ms; the last
    // fits requests at 1 000 ms but waits for tokens until 1 400 ms.
    const estimates = [0, 0, 0, 900, 0, 800];
    const times = await admitAll(limiter, estimates, watch);
    expect(Math.max(...times.slice(0, 4))).toBeLessThan(500);
    expect(times[4]).toBeGreaterThanOrEqual(500 - EARLY_MS);
    expect(times[5]).toBeGreaterThanOrEqual(1_400 - EARLY_MS);
    const admissions = times.map((at, i) => ({ at, costs: { r: 1, t: estimates[i]! } }));
    expect(overdraft(admissions, specs)).toBeUndefined();
    expect(times[5]).toBeLessThan(1_400 + SLACK_MS);
  });

  it("does not let small requests overtake a large one at the head", async () => {
    const limiter = await backend.limiter({ limits: { t: { unit: "tokens", limit: 1_000, windowMs: 1_000 } } });
    const watch = stopwatch();
    const order: string[] = [];
    const log = (name: string) => (r: Reservation) => {
      order.push(name);
      r.release();
      return watch.ms();
    };
    (await limiter.acquire(900)).release();
    // 100 tokens left: each small one would fit now, the large one only at 700 ms.
    const big = limiter.acquire(800).then(log("big"));
    const small = [1, 2, 3].map((i) => limiter.acquire(50).then(log(`small${i}`)));
    const [bigAt, ...smallAt] = await Promise.all([big, ...small]);
    expect(order).toEqual(["big", "small1", "small2", "small3"]);
    expect(bigAt).toBeGreaterThanOrEqual(700 - EARLY_MS);
    expect(Math.min(...smallAt)).toBeGreaterThanOrEqual(bigAt!);
  });

  it("gives a settle's refund back before the next admission", async () => {
    const limiter = await backend.limiter({ limits: { t: { unit: "tokens", limit: 1_000, windowMs: 1_000 } } });
    const watch = stopwatch();
    const a = await limiter.acquire(1_000);
    a.settle(400);
    a.release();
    // The refund of 600 covers this at once; without it, it would wait 600 ms.
    const at = await admittedAt(limiter.acquire(600), watch);
    expect(at).toBeLessThan(300);
  });

  it("charges a settle's extra usage before the next admission", async () => {
    const limiter = await backend.limiter({ limits: { t: { unit: "tokens", limit: 1_000, windowMs: 1_000 } } });
    const watch = stopwatch();
    const a = await limiter.acquire(500);
    a.settle(1_000);
    a.release();
    // The bucket is empty after the extra 500: the next 300 tokens come 300 ms after the start.
    const at = await admittedAt(limiter.acquire(300), watch);
    expect(at).toBeGreaterThanOrEqual(300 - EARLY_MS);
    expect(at).toBeLessThan(300 + SLACK_MS);
  });

  it("does not count a refund twice when the response's headers already include it", async () => {
    // 1 000 tokens/s. The provider reconciles before it answers, so its remaining counts the refund.
    const provider = createProvider({ tpm: 60_000 });
    const limiter = await backend.limiter({ tpm: 60_000, provider: "openai" });
    // Traffic the limiter does not see leaves the provider half full.
    await provider.call({ prompt: 0, maxTokens: 30_000, actual: 30_000 });
    await limiter.run(20_000, async (r) => {
      const result = await provider.call({ prompt: 0, maxTokens: 20_000, actual: 10 });
      r.sync(result.headers);
      return { value: undefined, used: 10 };
    });
    // About 30 000 left at the provider: 30 500 must wait ~0.5 s for it, not be sent at once.
    const status = await limiter.run(30_500, async () => ({
      value: (await provider.call({ prompt: 0, maxTokens: 30_500, actual: 10 })).status,
    }));
    expect(status).toBe(200);
    expect(provider.stats().rejected).toBe(0);
  });

  it("gives everything back when a waiter blocked on one dimension is aborted", async () => {
    const limiter = await backend.limiter({
      limits: {
        r: { unit: "requests", limit: 3, windowMs: 3_000 },
        t: { unit: "tokens", limit: 1_000, windowMs: 1_000 },
      },
    });
    const watch = stopwatch();
    (await limiter.acquire(1_000)).release();
    const controller = new AbortController();
    const blocked = limiter.acquire(800, { signal: controller.signal }).catch((e: unknown) => e);
    await sleep(100);
    controller.abort();
    expect(await blocked).toBe(controller.signal.reason);
    // Had the aborted one kept its 800 tokens this would wait until ~950 ms, had it kept
    // its request the next would wait ~800 ms for the requests bucket.
    const tokensAt = await admittedAt(limiter.acquire(150), watch);
    expect(tokensAt).toBeGreaterThanOrEqual(150 - EARLY_MS);
    expect(tokensAt).toBeLessThan(700);
    const requestAt = await admittedAt(limiter.acquire(0), watch);
    expect(requestAt - tokensAt).toBeLessThan(400);
  });

  it("rejects a wait beyond maxWaitMs with WaitTimeoutError and keeps nothing of it", async () => {
    const limiter = await backend.limiter({ limits: { t: { unit: "tokens", limit: 1_000, windowMs: 1_000 } } });
    (await limiter.acquire(1_000)).release();
    const error = await limiter.acquire(500, { maxWaitMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ dimension: "t", maxWaitMs: 100 });
    // 600 ms away; 1 100 ms had the rejected request kept its 500.
    (await limiter.acquire(600, { maxWaitMs: 1_000 })).release();
  });

  it("admits with maxWaitMs 0 whenever the bucket has room", async () => {
    const limiter = await backend.limiter({ limits: { t: { unit: "tokens", limit: 1_000, windowMs: 1_000 } } });
    (await limiter.acquire(1_000)).release();
    await sleep(400);
    // Refilled since the last admission: ~400 tokens, room for each of these in turn.
    for (let i = 0; i < 10; i++) (await limiter.acquire(10, { maxWaitMs: 0 })).release();
  });

  it("holds a concurrency slot until release", async () => {
    const limiter = await backend.limiter({ rpm: 1_000, concurrency: 2 });
    const watch = stopwatch();
    const [a, b] = await Promise.all([limiter.acquire(0), limiter.acquire(0)]);
    const third = admittedAt(limiter.acquire(0), watch);
    await sleep(300);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 2, queued: 1 });
    const releasedAt = watch.ms();
    a!.release();
    expect(await third).toBeGreaterThanOrEqual(releasedAt);
    b!.release();
    await limiter.onIdle();
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("close rejects waiters and later calls; calls in flight still finish", async () => {
    const limiter = await backend.limiter({ limits: { r: { unit: "requests", limit: 1, windowMs: 1_000 } } });
    const held = await limiter.acquire(0);
    const waiting = limiter.acquire(0).catch((e: unknown) => e);
    await sleep(50);
    limiter.close();
    expect(await waiting).toBeInstanceOf(LimiterClosedError);
    await expect(limiter.acquire(0)).rejects.toBeInstanceOf(LimiterClosedError);
    held.release();
    await limiter.onIdle();
  });
}
