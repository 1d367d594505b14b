// Header sync against draws still on their way to the provider (admitted within `arrivalDelayMs`, 500 by default):
// a `remaining` stamped when the response is sent has not counted them, whatever it says of the rest.
import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

function tokens(remaining: number): Record<string, string> {
  return { "x-ratelimit-limit-tokens": "10000", "x-ratelimit-remaining-tokens": String(remaining) };
}

describe("draws on their way", () => {
  it("a response's remaining is lowered by the draws admitted before it that may not have arrived", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai", initial: "full" });
    const slow = await limiter.acquire(2_000); // its connection is slow to open
    await time.timers.tickAsync(100);
    const fast = await limiter.acquire(1_000);
    await time.timers.tickAsync(200);
    // Others drew 4,000; the provider has seen `fast` but not `slow`, which is still on its way.
    fast.sync(tokens(5_000));
    expect(limiter.snapshot().dimensions.tpm?.available).toBeCloseTo(3_000, 6);
    slow.release();
    fast.release();
  });

  it("a response proves its own call arrived: its draw is not taken off again", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai", initial: "full" });
    const call = await limiter.acquire(1_000);
    call.sync(tokens(5_000));
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(5_000);
    call.release();
  });

  it("a refund for a call that arrived long ago leaves the later draws on their way", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai", initial: "full" });
    const long = await limiter.acquire(3_000);
    await time.timers.tickAsync(2_000); // `long` has reached the provider
    const recent = await limiter.acquire(1_000);
    await time.timers.tickAsync(100);
    long.settle(1_000); // a refund of 2,000: says nothing of `recent`, still on its way
    limiter.sync(tokens(6_000));
    expect(limiter.snapshot().dimensions.tpm?.available).toBeCloseTo(5_000, 6);
    long.release();
    recent.release();
  });

  it("past the arrival delay nothing is discounted", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai", initial: "full" });
    const call = await limiter.acquire(2_000);
    await time.timers.tickAsync(600);
    limiter.sync(tokens(6_000));
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(6_000);
    call.release();
  });
});
