/**
 * One booking call serves the head of the queue and the waiters behind it:
 * those that fit are admitted at once, in order; the first that does not is
 * booked for later and ends the batch. On virtual time, against a store in
 * this process that counts its calls.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Limiter, type LimiterOptions, type Reservation } from "../../src/index.js";
import type { SharedLayout, StoreFailurePolicy } from "../../src/store/shared-store.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "./in-process-store.js";

const time = useFakeTime();

/** 6,000 tokens a minute (100 a second), starting empty unless said otherwise. */
const TPM: LimiterOptions = { tpm: 6_000, initial: "empty" };
const tpmLayout: SharedLayout = {
  dimensions: [{ name: "tpm", limit: 6_000, windowMs: 60_000, capacity: 6_000 }],
  concurrency: undefined,
  initialFraction: 0,
};
const rpmLayout: SharedLayout = {
  dimensions: [{ name: "rpm", limit: 100, windowMs: 60_000, capacity: 100 }],
  concurrency: undefined,
  initialFraction: 1,
};

function setUp(
  options: LimiterOptions,
  onError: StoreFailurePolicy = "fail-closed",
): { store: InProcessStore; limiter: Limiter } {
  const store = new InProcessStore(() => performance.now(), 60_000, onError);
  return { store, limiter: new Limiter({ ...options, store, onWarning: () => {} }) };
}

/** Acquires each estimate in this tick; logs `label@time` on admission and releases. */
function acquireAll(
  limiter: Limiter,
  estimates: readonly number[],
  log: string[],
  options: { signal?: AbortSignal; maxWaitMs?: number }[] = [],
): Promise<unknown>[] {
  return estimates.map((estimate, i) =>
    limiter.acquire(estimate, options[i]).then(
      (r: Reservation) => {
        log.push(`${i}@${performance.now()}`);
        r.release();
      },
      (error: unknown) => {
        log.push(`${i}:${(error as Error).name}`);
      },
    ),
  );
}

describe("batch booking", () => {
  it("admits every queued waiter that fits in one round trip, in FIFO order", async () => {
    const { store, limiter } = setUp({ rpm: 100 });
    const log: string[] = [];
    acquireAll(limiter, [0, 0, 0, 0, 0, 0, 0, 0], log);
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0@0", "1@0", "2@0", "3@0", "4@0", "5@0", "6@0", "7@0"]);
    expect(store.calls).toBe(1);
  });

  it("takes no more than an eighth of a bucket per round trip, so another process's call finds the rest", async () => {
    const { store, limiter } = setUp({ rpm: 100 }); // 12.5 requests a call
    const log: string[] = [];
    acquireAll(limiter, Array<number>(40).fill(0), log);
    await time.timers.tickAsync(0);
    expect(log).toHaveLength(40);
    expect(log.every((entry) => entry.endsWith("@0"))).toBe(true);
    expect(store.calls).toBe(4); // 12, 12, 12, 4
  });

  it("books a head that costs more than a batch's share alone, then those behind it", async () => {
    const { store, limiter } = setUp({ ...TPM, initial: "full" }); // 750 tokens a call
    const log: string[] = [];
    acquireAll(limiter, [1_000, 100, 100], log);
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0@0", "1@0", "2@0"]);
    expect(store.calls).toBe(2);
  });

  it("short of concurrency slots, looks again when one may be free, not in the same tick", async () => {
    const { store, limiter } = setUp({ rpm: 100, concurrency: 2 });
    const held: Reservation[] = [];
    for (let i = 0; i < 5; i++) void limiter.acquire(0).then((r) => held.push(r));
    await time.timers.tickAsync(0);
    expect(held).toHaveLength(2);
    expect(store.calls).toBe(1);
  });

  it("books the first that does not fit for later and ends the batch there: the rest book after it", async () => {
    const { store, limiter } = setUp({ ...TPM, initial: 0.05 }); // 300 tokens now
    const log: string[] = [];
    acquireAll(limiter, [100, 200, 300, 100], log);
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0@0", "1@0"]);
    expect(store.calls).toBe(1);
    await time.timers.tickAsync(5_000);
    // 300 due at 3 s; the 100 behind it is booked once it is admitted, due 1 s later.
    expect(log).toEqual(["0@0", "1@0", "2@3000", "3@4000"]);
    expect(store.calls).toBe(2);
  });

  it("an abort of the waiter booked for later gives its booking back; those behind it move up", async () => {
    const { store, limiter } = setUp({ ...TPM, initial: 0.05 });
    const log: string[] = [];
    const controller = new AbortController();
    acquireAll(limiter, [300, 3_000, 100], log, [{}, { signal: controller.signal }]);
    await time.timers.tickAsync(1_000);
    expect(log).toEqual(["0@0"]);
    controller.abort();
    await time.timers.tickAsync(0);
    // The 3,000 went back: the second of refill (100) admits the waiter behind it at once.
    expect(log).toEqual(["0@0", "1:AbortError", "2@1000"]);
    expect(store.levelOf(tpmLayout, "tpm")).toBeCloseTo(0, 6);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(time.timers.countTimers()).toBe(0);
  });

  it("a waiter of the batch booked past its deadline is refused and its booking given back; the others are admitted", async () => {
    const { store, limiter } = setUp({ ...TPM, initial: 0.05 });
    const log: string[] = [];
    acquireAll(limiter, [100, 200, 3_000, 100], log, [{}, {}, { maxWaitMs: 10_000 }]);
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0@0", "1@0", "2:WaitTimeoutError"]);
    await time.timers.tickAsync(1_000);
    expect(log).toEqual(["0@0", "1@0", "2:WaitTimeoutError", "3@1000"]);
    expect(store.levelOf(tpmLayout, "tpm")).toBeCloseTo(0, 6);
  });

  it("a waiter that leaves while its batch is on its way gets back what the call took for it", async () => {
    const { store, limiter } = setUp({ rpm: 100, concurrency: 5 });
    let answer!: () => void;
    store.slow = new Promise((resolve) => (answer = resolve));
    const log: string[] = [];
    const controller = new AbortController();
    acquireAll(limiter, [0, 0, 0], log, [{}, { signal: controller.signal }]);
    await time.timers.tickAsync(0);
    controller.abort();
    answer();
    await time.timers.tickAsync(0);
    expect(log).toEqual(["1:AbortError", "0@0", "2@0"]);
    expect(store.levelOf(rpmLayout, "rpm")).toBe(100 - 2);
    expect(store.leasesHeld).toBe(0);
  });

  it("when every waiter of a call on its way leaves, those queued behind them book once it is answered", async () => {
    const { store, limiter } = setUp({ ...TPM, initial: 0.05 });
    let answer!: () => void;
    store.slow = new Promise((resolve) => (answer = resolve));
    const log: string[] = [];
    const controller = new AbortController();
    acquireAll(limiter, [3_000], log, [{ signal: controller.signal }]);
    await time.timers.tickAsync(0);
    controller.abort();
    acquireAll(limiter, [100], log);
    answer();
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0:AbortError", "0@0"]);
    // The first booking, the 3,000 given back, the next booking.
    expect(store.calls).toBe(3);
  });

  it("takes the leases of the waiters it admits; one that finds no slot waits, and those behind it", async () => {
    const { store, limiter } = setUp({ rpm: 100, concurrency: 2 });
    const held: Reservation[] = [];
    const order: number[] = [];
    [0, 1, 2, 3].forEach((i) => void limiter.acquire(0).then((r) => order.push(i) && held.push(r)));
    await time.timers.tickAsync(0);
    expect(order).toEqual([0, 1]);
    expect(store.leasesHeld).toBe(2);
    held.shift()!.release();
    await time.timers.tickAsync(0);
    expect(order).toEqual([0, 1, 2]);
    for (const r of held.splice(0)) r.release();
    await time.timers.tickAsync(0);
    expect(order).toEqual([0, 1, 2, 3]);
    for (const r of held) r.release();
  });

  it("each admission of a batch carries its own mark: header sync discounts what was booked after it", async () => {
    const { store, limiter } = setUp({ rpm: 100, provider: "openai" });
    const admitted = await Promise.all([limiter.acquire(0), limiter.acquire(0), limiter.acquire(0)]);
    expect(store.calls).toBe(1);
    // The provider saw only the first: 50 left, and the two after it were booked since.
    admitted[0]!.sync({ "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "50" });
    for (const r of admitted) r.release();
    await time.timers.tickAsync(0);
    expect(store.levelOf(rpmLayout, "rpm")).toBe(48);
  });
});

describe("a batch whose booking call fails", () => {
  /** Five waiters with signals and deadlines queued while the store is down. */
  function queueFive(limiter: Limiter, log: string[]): AbortController[] {
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    acquireAll(
      limiter,
      [0, 0, 0, 0, 0],
      log,
      controllers.map((c) => ({ signal: c.signal, maxWaitMs: 60_000 })),
    );
    return controllers;
  }

  /** Nothing left behind: no listener on any signal, no timer, no lease. */
  function expectNothingLeaked(store: InProcessStore, controllers: AbortController[]): void {
    for (const c of controllers) expect(getEventListeners(c.signal, "abort")).toHaveLength(0);
    expect(time.timers.countTimers()).toBe(0);
    expect(store.leasesHeld).toBe(0);
  }

  it("fail-closed: every waiter of the batch keeps its place and is admitted, in order, once the store is back", async () => {
    const { store, limiter } = setUp({ rpm: 100, concurrency: 10 });
    store.down = true;
    const log: string[] = [];
    const controllers = queueFive(limiter, log);
    await time.timers.tickAsync(1_000);
    expect(log).toEqual([]);
    expect(limiter.snapshot().queued).toBe(5);
    store.down = false;
    await time.timers.tickAsync(2_000);
    expect(log.map((entry) => entry.split("@")[0])).toEqual(["0", "1", "2", "3", "4"]);
    await limiter.onIdle();
    expectNothingLeaked(store, controllers);
  });

  it("fail-closed: a waiter of the batch whose deadline passes during the outage is rejected, the others stay", async () => {
    const { store, limiter } = setUp({ rpm: 100 });
    store.down = true;
    const log: string[] = [];
    acquireAll(limiter, [0, 0, 0], log, [{}, { maxWaitMs: 500 }]);
    await time.timers.tickAsync(1_000);
    expect(log).toEqual(["1:WaitTimeoutError"]);
    store.down = false;
    await time.timers.tickAsync(2_000);
    expect(log.slice(1).map((entry) => entry.split("@")[0])).toEqual(["0", "2"]);
  });

  it("fail-open: every waiter of the batch is admitted, in order, unmetered", async () => {
    const { store, limiter } = setUp({ rpm: 1, concurrency: 1 }, "fail-open");
    store.down = true;
    const log: string[] = [];
    const controllers = queueFive(limiter, log);
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0@0", "1@0", "2@0", "3@0", "4@0"]);
    await limiter.onIdle();
    limiter.close();
    expectNothingLeaked(store, controllers);
  });

  it("{ local }: the waiters of the batch go through the local share in order; the rest once the store is back", async () => {
    const { store, limiter } = setUp({ rpm: 8 }, { local: 1 / 4 });
    store.down = true;
    const log: string[] = [];
    const controllers = queueFive(limiter, log);
    await time.timers.tickAsync(0);
    expect(log).toEqual(["0@0", "1@0"]);
    store.down = false;
    await time.timers.tickAsync(2_000);
    expect(log.map((entry) => entry.split("@")[0])).toEqual(["0", "1", "2", "3", "4"]);
    await limiter.onIdle();
    limiter.close();
    expectNothingLeaked(store, controllers);
  });
});
