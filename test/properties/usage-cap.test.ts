/**
 * Conservation for believed usage: after calls settle reported usages, honest or absurd, each
 * dimension's level is its capacity less what an independent model says each settle charges.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

useFakeTime();

/** The model: whole tokens, believed up to the larger of 16 estimates and a bucket, and never past maxUsage. */
function charged(used: number, estimate: number, capacity: number, maxUsage: number): number {
  const bound = Math.ceil(Math.min(maxUsage, Math.max(16 * estimate, capacity)));
  return Math.min(Math.ceil(used), bound);
}

const usage = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 50_000 }) },
  { weight: 2, arbitrary: fc.double({ min: 0, max: 5_000, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(1e15, 1e20, 1e300, Number.MAX_VALUE) },
);

const scenario = fc.record({
  capacity: fc.integer({ min: 1, max: 100_000 }),
  maxUsage: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 200_000 }), fc.constant(Infinity)),
  calls: fc.array(
    fc.record({
      estimate: fc.integer({ min: 0, max: 2_000 }),
      settles: fc.array(usage, { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
});

describe("settle charges the believed usage (invariant 3 for capped usage)", () => {
  it("levels are capacity less the model's charges; a warning exactly when a usage was capped", () => {
    fc.assert(
      fc.property(scenario, ({ capacity, maxUsage, calls }) => {
        const warnings: Error[] = [];
        const limiter = new Limiter({
          limits: { tokens: { unit: "tokens", limit: 1e12, windowMs: 60_000, capacity } },
          initial: "full",
          arrivalDelayMs: 0,
          ...(maxUsage === undefined ? {} : { maxUsage }),
          onWarning: (w) => warnings.push(w),
        });
        let level = capacity;
        let capped = 0;
        for (const { estimate, settles } of calls) {
          if (estimate > capacity) continue; // too large: refused at once, as elsewhere tested
          // Time stands still: a call is admitted only while the level covers it, a debt is never repaid.
          const reservation = limiter.tryAcquire(estimate);
          expect(reservation !== undefined).toBe(level >= estimate);
          if (!reservation) continue;
          let charge = estimate;
          for (const used of settles) {
            reservation.settle(used);
            charge = charged(used, estimate, capacity, maxUsage ?? 10_000_000);
            if (charge < Math.ceil(used)) capped++;
          }
          reservation.release();
          level -= charge;
        }
        expect(warnings).toHaveLength(capped);
        expect(limiter.snapshot().dimensions.tokens!.available).toBe(Math.floor(level));
      }),
      { numRuns: numRuns(300) },
    );
  });
});
