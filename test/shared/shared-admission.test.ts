import { describe, expect, it, vi } from "vitest";
import { Limiter, WaitTimeoutError, type LimiterOptions } from "../../src/index.js";
import type { StoreFailurePolicy } from "../../src/store/shared-store.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "./in-process-store.js";

const time = useFakeTime();

function sharedStore(options: { leaseMs?: number; onError?: StoreFailurePolicy } = {}): InProcessStore {
  return new InProcessStore(() => performance.now(), options.leaseMs, options.onError);
}

/** `count` limiters on one store. */
function replicas(count: number, store: InProcessStore, options: LimiterOptions): Limiter[] {
  return Array.from({ length: count }, () => new Limiter({ ...options, store, onWarning: () => {} }));
}

function admissionTimes(limiter: Limiter, count: number, estimate = 0, label = ""): string[] {
  const log: string[] = [];
  for (let i = 0; i < count; i++) {
    void limiter.acquire(estimate).then((r) => {
      log.push(`${label}${performance.now()}`);
      r.release();
    });
  }
  return log;
}

describe("limiters sharing one store", () => {
  it("share one bucket: 100 at once across two replicas, the 101st 0.6 s later", async () => {
    const store = sharedStore();
    const [a, b] = replicas(2, store, { rpm: 100 });
    const fromA = admissionTimes(a!, 60);
    const fromB = admissionTimes(b!, 41);
    await time.timers.tickAsync(0);
    expect(fromA.length + fromB.length).toBe(100);
    await time.timers.tickAsync(600);
    expect(fromA.length + fromB.length).toBe(101);
    expect([...fromA, ...fromB].filter((t) => t === "600")).toHaveLength(1);
  });

  it("serves replicas in booking order: a large request is not overtaken by another replica's small ones", async () => {
    const store = sharedStore();
    const [a, b] = replicas(2, store, { tpm: 6_000, initial: "empty" });
    const log: string[] = [];
    void a!.acquire(3_000).then((r) => log.push(`big@${performance.now()}`) && r.release());
    await time.timers.tickAsync(0);
    for (let i = 0; i < 3; i++) void b!.acquire(100).then((r) => log.push(`small@${performance.now()}`) && r.release());
    await time.timers.tickAsync(40_000);
    expect(log[0]).toBe("big@30000");
    expect(log.slice(1)).toEqual(["small@31000", "small@32000", "small@33000"]);
  });

  it("an uncontended admission is one round trip; a settle is one more", async () => {
    const store = sharedStore();
    const [limiter] = replicas(1, store, { rpm: 100, tpm: 10_000 });
    const r = await limiter!.acquire(1_000);
    expect(store.calls).toBe(1);
    r.settle(400);
    await time.timers.tickAsync(0);
    expect(store.calls).toBe(2);
    r.release();
    expect(limiter!.snapshot().dimensions.tpm?.available).toBe(9_600);
  });

  it("an aborted booking is given back", async () => {
    const store = sharedStore();
    const [limiter] = replicas(1, store, { tpm: 6_000, initial: "empty" });
    const controller = new AbortController();
    const aborted = limiter!.acquire(3_000, { signal: controller.signal }).catch((e: unknown) => e);
    await time.timers.tickAsync(1_000);
    controller.abort();
    expect(await aborted).toBeInstanceOf(DOMException);
    await time.timers.tickAsync(0);
    const layout = {
      dimensions: [{ name: "tpm", limit: 6_000, windowMs: 60_000, capacity: 6_000 }],
      concurrency: undefined,
      initialFraction: 0,
    };
    expect(store.levelOf(layout, "tpm")).toBeCloseTo(100, 6);
    expect(time.timers.countTimers()).toBe(0);
  });

  it("a booking past maxWaitMs is refused and given back", async () => {
    const store = sharedStore();
    const [limiter] = replicas(1, store, { tpm: 6_000, initial: "empty" });
    const error = await limiter!.acquire(3_000, { maxWaitMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ dimension: "tpm", waitMs: 30_000 });
    const r = await limiter!.acquire(0, { maxWaitMs: 0 });
    r.release();
  });

  it("concurrency is a lease across replicas; a crashed holder's lease expires", async () => {
    const store = sharedStore({ leaseMs: 5_000 });
    const layout = { dimensions: [], concurrency: 1, initialFraction: 1 };
    // A process took a slot and crashed: nobody renews or releases its lease.
    expect((await store.book(layout, [[]])).leases).toHaveLength(1);
    const [b] = replicas(1, store, { rpm: 1_000, concurrency: 1 });
    let admitted = false;
    void b!.acquire(0).then((r) => {
      admitted = true;
      r.release();
    });
    await time.timers.tickAsync(4_000);
    expect(admitted).toBe(false);
    await time.timers.tickAsync(1_500);
    expect(admitted).toBe(true);
  });

  it("leases are renewed while the call runs", async () => {
    const store = sharedStore({ leaseMs: 3_000 });
    const [a, b] = replicas(2, store, { rpm: 1_000, concurrency: 1 });
    const holder = await a!.acquire(0);
    let admitted = false;
    void b!.acquire(0).then((r) => {
      admitted = true;
      r.release();
    });
    await time.timers.tickAsync(20_000);
    expect(admitted).toBe(false);
    holder.release();
    await time.timers.tickAsync(1_000);
    expect(admitted).toBe(true);
    expect(store.leasesHeld).toBe(0);
  });

  it("header sync discounts what every replica booked after the request", async () => {
    const store = sharedStore();
    const [a, b] = replicas(2, store, { rpm: 100, provider: "openai" });
    const first = await a!.acquire(0);
    (await b!.acquire(0)).release();
    (await b!.acquire(0)).release();
    // The provider saw only the first call: 99 left, of which two are already booked since.
    first.sync({ "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "50" });
    first.release();
    // b booked credit with its second call (discounted too, as booked after the mark): closing gives it back.
    await b!.close();
    const layout = {
      dimensions: [{ name: "rpm", limit: 100, windowMs: 60_000, capacity: 100 }],
      concurrency: undefined,
      initialFraction: 1,
    };
    expect(store.levelOf(layout, "rpm")).toBe(48);
  });

  it("tryAcquire is not available with a shared store", () => {
    const [limiter] = replicas(1, sharedStore(), { rpm: 10 });
    expect(() => limiter!.tryAcquire(0)).toThrow(TypeError);
  });

  it("close gives a pending booking back and leaves no timer", async () => {
    const store = sharedStore();
    const [limiter] = replicas(1, store, { rpm: 60, initial: "empty" });
    const pending = limiter!.acquire(0).catch((e: unknown) => e);
    await time.timers.tickAsync(0);
    limiter!.close();
    expect(await pending).toMatchObject({ code: "LIMITER_CLOSED" });
    await time.timers.tickAsync(0);
    const layout = {
      dimensions: [{ name: "rpm", limit: 60, windowMs: 60_000, capacity: 60 }],
      concurrency: undefined,
      initialFraction: 0,
    };
    expect(store.levelOf(layout, "rpm")).toBe(0);
    expect(time.timers.countTimers()).toBe(0);
  });
});

describe("when the store is unreachable", () => {
  it("fail-closed: requests wait, typed warning once, and go through when it is back", async () => {
    const store = sharedStore();
    const onWarning = vi.fn();
    const limiter = new Limiter({ rpm: 100, store, onWarning });
    store.down = true;
    let admitted = false;
    void limiter.acquire(0).then((r) => {
      admitted = true;
      r.release();
    });
    await time.timers.tickAsync(5_000);
    expect(admitted).toBe(false);
    expect(onWarning).toHaveBeenCalledTimes(1);
    store.down = false;
    await time.timers.tickAsync(2_000);
    expect(admitted).toBe(true);
  });

  it("fail-closed: a waiter with maxWaitMs times out instead of waiting forever", async () => {
    const store = sharedStore();
    const limiter = new Limiter({ rpm: 100, store, onWarning: () => {} });
    store.down = true;
    const error = limiter.acquire(0, { maxWaitMs: 1_000 }).catch((e: unknown) => e);
    await time.timers.tickAsync(1_000);
    expect(await error).toBeInstanceOf(WaitTimeoutError);
  });

  it("fail-open: admits everything while the store is down", async () => {
    const store = sharedStore({ onError: "fail-open" });
    const limiter = new Limiter({ rpm: 1, store, onWarning: () => {} });
    (await limiter.acquire(0)).release();
    store.down = true;
    const admitted = admissionTimes(limiter, 5);
    await time.timers.tickAsync(100);
    expect(admitted.length).toBe(5);
  });

  it("{ local: 1/4 }: a local limiter holds a quarter of the quota until the store is back", async () => {
    const store = sharedStore({ onError: { local: 1 / 4 } });
    const limiter = new Limiter({ rpm: 100, store, onWarning: () => {} });
    store.down = true;
    const admitted = admissionTimes(limiter, 40);
    await time.timers.tickAsync(10);
    expect(admitted.length).toBe(25);
    store.down = false;
    await time.timers.tickAsync(3_000);
    expect(admitted.length).toBe(40);
  });

  it("rejects a bad failure policy at once", () => {
    expect(() => new Limiter({ rpm: 1, store: sharedStore({ onError: { local: 2 } }) })).toThrow(RangeError);
  });
});
