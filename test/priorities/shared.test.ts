import { describe, expect, it } from "vitest";
import { Limiter, type LimiterOptions, type Reservation } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "../shared/in-process-store.js";

const time = useFakeTime();
const CLASSES = ["interactive", "default", "background"];

function sharedLimiter(store: InProcessStore, options: LimiterOptions): Limiter {
  return new Limiter({ priorities: CLASSES, ...options, store, onWarning: () => {} });
}

function recorder(): { order: string[]; track: (name: string, admitted: Promise<Reservation>) => void } {
  const order: string[] = [];
  const track = (name: string, admitted: Promise<Reservation>): void =>
    void admitted.then(
      (reservation) => {
        order.push(`${name}@${performance.now()}`);
        reservation.release();
      },
      () => {},
    );
  return { order, track };
}

describe("priorities through a shared store", () => {
  it("order each process's queue: classes strictly, tenants fairly, in the batches it books", async () => {
    const store = new InProcessStore(() => performance.now());
    // 10 tokens a second, nothing at start.
    const limiter = sharedLimiter(store, { tpm: 600, initial: "empty" });
    const { order, track } = recorder();
    for (let i = 0; i < 3; i++) track(`noisy ${i}`, limiter.acquire(10, { priority: "background", tenant: "noisy" }));
    track("quiet", limiter.acquire(10, { priority: "background", tenant: "quiet" }));
    track("urgent", limiter.acquire(10, { priority: "interactive" }));
    await time.timers.tickAsync(10_000);
    expect(order).toEqual(["urgent@1000", "noisy 0@2000", "quiet@3000", "noisy 1@4000", "noisy 2@5000"]);
  });

  it("give back a less urgent booking for later when a more urgent call comes", async () => {
    const store = new InProcessStore(() => performance.now());
    const limiter = sharedLimiter(store, { tpm: 600, initial: "empty" });
    const { order, track } = recorder();
    track("background", limiter.acquire(100, { priority: "background" }));
    await time.timers.tickAsync(1_000);
    track("interactive", limiter.acquire(10, { priority: "interactive" }));
    await time.timers.tickAsync(20_000);
    // Booked first, the background call would have held the interactive one until 10 s.
    expect(order).toEqual(["interactive@1000", "background@11000"]);
  });

  it("keep a class's headroom in the levels the store answers: booked alone, given back when it went into it", async () => {
    const store = new InProcessStore(() => performance.now());
    const limiter = sharedLimiter(store, { tpm: 1_000, initial: "full", headroom: { background: 0.2 } });
    const { order, track } = recorder();
    for (let i = 0; i < 10; i++) track(`bg ${i}`, limiter.acquire(100, { priority: "background" }));
    await time.timers.tickAsync(0);
    expect(order).toHaveLength(8);
    expect(limiter.snapshot().dimensions.tpm!.available).toBe(200);
    // The reserve is there for an interactive call at once.
    track("interactive", limiter.acquire(200, { priority: "interactive" }));
    await time.timers.tickAsync(0);
    expect(order.at(-1)).toBe("interactive@0");
    // Background goes on once 300 tokens refilled (reserve + cost): 18 s at 1,000 a minute, then every 6 s.
    await time.timers.tickAsync(30_000);
    expect(order.slice(9)).toEqual(["bg 8@18000", "bg 9@24000"]);
  });
});
