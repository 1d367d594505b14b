import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

/** Admits `count` requests of `estimate` at once and records when each was admitted. */
function burst(limiter: Limiter, count: number, estimate = 0): number[] {
  const admittedAt: number[] = [];
  for (let i = 0; i < count; i++) {
    void limiter.acquire(estimate).then((r) => {
      admittedAt.push(performance.now());
      r.release();
    });
  }
  return admittedAt;
}

describe("pinned numbers from the seeds", () => {
  // The seeds' numbers assume every call reaches the provider at once (`arrivalDelayMs: 0`). By
  // default a call may arrive up to 500 ms after admission, and until a burst from full has arrived
  // the provider's bucket may still be full and refill nothing: the refill after it starts 500 ms late.
  it.each([
    ["calls arriving at once", { arrivalDelayMs: 0 }, 0],
    ["default options", {}, 500],
  ] as const)("C = 100 at 100/min: 100 in the same instant, the 101st at 0.6 s (%s)", async (_, options, lateMs) => {
    const limiter = new Limiter({ rpm: 100, ...options });
    await time.timers.tickAsync(60_000); // a minute idle: full
    const start = performance.now();
    const admittedAt = burst(limiter, 101);
    await time.timers.tickAsync(0);
    expect(admittedAt.length).toBe(100);
    expect(admittedAt.every((t) => t === start)).toBe(true);
    await time.timers.tickAsync(599 + lateMs);
    expect(admittedAt.length).toBe(100);
    await time.timers.tickAsync(1);
    expect(admittedAt.length).toBe(101);
    expect(admittedAt[100]! - start).toBe(600 + lateMs);
  });

  it.each([
    ["calls arriving at once", { arrivalDelayMs: 0 }, 0],
    ["default options", {}, 500],
  ] as const)("a burst of B = 500 from full drains in (B - C) / r = 4 minutes (%s)", async (_, options, lateMs) => {
    const limiter = new Limiter({ rpm: 100, ...options });
    const start = performance.now();
    const admittedAt = burst(limiter, 500);
    await time.timers.tickAsync(4 * 60_000 + lateMs - 1);
    expect(admittedAt.length).toBe(499);
    await time.timers.tickAsync(1);
    expect(admittedAt.length).toBe(500);
    expect(admittedAt[499]! - start).toBe(240_000 + lateMs);
    await limiter.onIdle();
  });

  it("the binding dimension decides: TPM binds above the crossover of TPM / RPM tokens", async () => {
    // 3,000 RPM and 1,000,000 TPM cross over at ~333 tokens per request.
    const tpmBound = new Limiter({ rpm: 3000, tpm: 1_000_000, initial: "empty" });
    const rpmBound = new Limiter({ rpm: 3000, tpm: 1_000_000, initial: "empty" });
    const big = burst(tpmBound, 10, 400);
    const small = burst(rpmBound, 10, 300);
    await time.timers.tickAsync(200);
    // 200 ms refills 10 requests and 3,333 tokens: 8 calls of 400 tokens, 10 of 300.
    expect(big.length).toBe(8);
    expect(small.length).toBe(10);
  });
});
