import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WindowTally } from "../../src/core/window-tally.js";

const WINDOW = 60_000;
const BUCKET = WINDOW / 10;

/** What was added in (from, to], exactly. */
function exact(adds: readonly (readonly [number, number])[], from: number, to: number): number {
  return adds.filter(([at]) => at > from && at <= to).reduce((sum, [, amount]) => sum + amount, 0);
}

describe("WindowTally", () => {
  it("keeps its columns apart", () => {
    const tally = new WindowTally(WINDOW, 2);
    tally.add(1_000, 0, 5);
    tally.add(2_000, 1, 7);
    expect([tally.sum(3_000, 0), tally.sum(3_000, 1)]).toEqual([5, 7]);
  });

  it("takes an addition dated back into the bucket it belongs to, and drops one older than the window", () => {
    const tally = new WindowTally(WINDOW, 1);
    tally.add(WINDOW * 3, 0, 10);
    tally.add(WINDOW * 3 - 1_000, 0, 1); // still inside
    tally.add(WINDOW * 2 - BUCKET - 1, 0, 100); // its slot holds a newer bucket: gone
    expect(tally.sum(WINDOW * 3, 0)).toBe(11);
  });

  // Against the exact sum: never below what lies a bucket inside the window, never above what lies a bucket outside it.
  it("is within one bucket of the exact sliding sum", () => {
    const adds = fc.array(fc.tuple(fc.integer({ min: 0, max: 10 * WINDOW }), fc.integer({ min: 0, max: 1_000 })), {
      maxLength: 200,
    });
    fc.assert(
      fc.property(adds, fc.integer({ min: 0, max: 11 * WINDOW }), (unsorted, now) => {
        const sorted = [...unsorted].sort((a, b) => a[0] - b[0]);
        const tally = new WindowTally(WINDOW, 1);
        for (const [at, amount] of sorted) if (at <= now) tally.add(at, 0, amount);
        const seen = sorted.filter(([at]) => at <= now);
        const sum = tally.sum(now, 0);
        expect(sum).toBeGreaterThanOrEqual(exact(seen, now - WINDOW + BUCKET, now) - 1e-9);
        expect(sum).toBeLessThanOrEqual(exact(seen, now - WINDOW - BUCKET, now) + 1e-9);
      }),
    );
  });
});
