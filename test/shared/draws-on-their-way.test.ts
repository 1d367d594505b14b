// Header sync through a shared store discounts this process's draws still on their way to the provider (admitted
// within `arrivalDelayMs`, 500 by default), as the in-process buckets do (test/draws-on-their-way.test.ts): the
// reading the store gets has them taken off the remaining.
import { describe, expect, it, vi } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "./in-process-store.js";

const time = useFakeTime();

function tokens(remaining: number): Record<string, string> {
  return { "x-ratelimit-limit-tokens": "10000", "x-ratelimit-remaining-tokens": String(remaining) };
}

/** A limiter on a store of its own, and the remaining of every reading the store is sent. */
function sharedLimiter(): { limiter: Limiter; readings: number[] } {
  const store = new InProcessStore(() => performance.now());
  const readings: number[] = [];
  const resync = store.resync.bind(store);
  vi.spyOn(store, "resync").mockImplementation((layout, index, reading) => {
    readings.push(reading.remaining);
    return resync(layout, index, reading);
  });
  return { limiter: new Limiter({ tpm: 10_000, provider: "openai", initial: "full", store }), readings };
}

describe("draws on their way, through a shared store", () => {
  it("a response's remaining loses the earlier draws that may not have arrived, not its own", async () => {
    const { limiter, readings } = sharedLimiter();
    const slow = await limiter.acquire(2_000);
    await time.timers.tickAsync(100);
    const fast = await limiter.acquire(1_000);
    await time.timers.tickAsync(200);
    fast.sync(tokens(5_000));
    expect(readings).toEqual([3_000]);
    slow.release();
    fast.release();
    await limiter.close();
  });

  it("a refund for a call that arrived long ago leaves the later draws on their way", async () => {
    const { limiter, readings } = sharedLimiter();
    const long = await limiter.acquire(3_000);
    await time.timers.tickAsync(2_000);
    const recent = await limiter.acquire(1_000);
    await time.timers.tickAsync(100);
    long.settle(1_000);
    limiter.sync(tokens(6_000));
    expect(readings).toEqual([5_000]);
    long.release();
    recent.release();
    await limiter.close();
  });

  it("past the arrival delay the remaining goes as reported", async () => {
    const { limiter, readings } = sharedLimiter();
    const call = await limiter.acquire(2_000);
    await time.timers.tickAsync(600);
    limiter.sync(tokens(6_000));
    expect(readings).toEqual([6_000]);
    call.release();
    await limiter.close();
  });
});
