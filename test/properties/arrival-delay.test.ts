import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";
import { ProviderBucket } from "./provider-bucket.js";
import { numRuns } from "./runs.js";

const time = useFakeTime();

interface Call {
  /** When the caller asks for admission. */
  startMs: number;
  /** Reserved tokens (prompt + max_tokens). */
  cost: number;
  /** Fraction of the reservation the call uses. */
  used: number;
  /** Fraction of the limiter's `arrivalDelayMs` the call takes to reach the provider. */
  delay: number;
  /** From arrival until the provider completes and the caller settles. */
  latencyMs: number;
}

const scenario = fc.record({
  limit: fc.integer({ min: 1, max: 5_000 }),
  windowMs: fc.constantFrom(1_000, 10_000, 60_000),
  requests: fc.integer({ min: 1, max: 200 }),
  arrivalDelayMs: fc.integer({ min: 0, max: 1_000 }),
  calls: fc.array(
    fc.record({
      startMs: fc.integer({ min: 0, max: 20_000 }),
      cost: fc.double({ min: 0, max: 1, noNaN: true }),
      used: fc.double({ min: 0, max: 1, noNaN: true }),
      delay: fc.double({ min: 0, max: 1, noNaN: true }),
      latencyMs: fc.integer({ min: 0, max: 3_000 }),
    }),
    { minLength: 1, maxLength: 80 },
  ),
});

describe("arrival delays (invariant 1 on a real network)", () => {
  it("a provider metering exactly as configured never rejects an admitted call, whatever delay in [0, arrivalDelayMs] each call takes to reach it", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ limit, windowMs, requests, arrivalDelayMs, calls }) => {
        const limiter = new Limiter({
          rpm: requests,
          limits: { tokens: { unit: "tokens", limit, windowMs } },
          arrivalDelayMs,
        });
        const t0 = performance.now();
        const tokens = new ProviderBucket(limit, windowMs, limit);
        const perMinute = new ProviderBucket(requests, 60_000, requests);
        const rejected: string[] = [];
        const done = calls.map(async (call: Call) => {
          await new Promise((resolve) => setTimeout(resolve, call.startMs));
          const cost = Math.round(call.cost * limit);
          const reservation = await limiter.acquire(cost);
          // Whole milliseconds, and none at all for 0: timers round a fraction up, past the delay allowed.
          const delayMs = Math.floor(call.delay * arrivalDelayMs);
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          const now = performance.now() - t0;
          if (!perMinute.charge(1, now)) rejected.push(`requests at ${now}`);
          if (!tokens.charge(cost, now)) rejected.push(`${cost} tokens at ${now}`);
          await new Promise((resolve) => setTimeout(resolve, call.latencyMs));
          const used = Math.round(call.used * cost);
          tokens.refund(cost - used, performance.now() - t0);
          reservation.settle(used);
          reservation.release();
        });
        await time.timers.runAllAsync();
        await Promise.all(done);
        expect(rejected).toEqual([]);
      }),
      { numRuns: numRuns(150) },
    );
  });
});
