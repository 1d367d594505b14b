import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContinuousBucket } from "../../src/testing/buckets.js";
import { FixedWindowCounter } from "../../src/testing/windows.js";

const MINUTE = 60_000;

describe("ContinuousBucket", () => {
  it("starts full and refills limit per period, capped at the limit", () => {
    const bucket = new ContinuousBucket(100, MINUTE, 0);
    expect(bucket.level(0)).toBe(100);
    bucket.take(100, 0);
    expect(bucket.level(0)).toBe(0);
    expect(bucket.level(30_000)).toBe(50);
    expect(bucket.level(10 * MINUTE)).toBe(100);
  });

  it("says how long until a cost fits: 1 request at 100/min is exactly 600 ms", () => {
    const bucket = new ContinuousBucket(100, MINUTE, 0);
    bucket.take(100, 0);
    expect(bucket.waitMs(1, 0)).toBe(600);
    expect(bucket.waitMs(1, 599)).toBeGreaterThan(0);
    expect(bucket.waitMs(1, 600)).toBe(0);
  });

  it("reports a cost above the capacity as never fitting", () => {
    expect(new ContinuousBucket(100, MINUTE, 0).waitMs(101, 0)).toBe(Infinity);
  });

  it("refunds onto the refilled level, never above the limit", () => {
    const bucket = new ContinuousBucket(1_000, MINUTE, 0);
    bucket.take(900, 0);
    // 30 s later the level is 100 + 500; a stale refund of 900 must not make it 1000 + more.
    bucket.refund(900, 30_000);
    expect(bucket.level(30_000)).toBe(1_000);
    bucket.take(600, 30_000);
    bucket.refund(100, 30_000);
    expect(bucket.level(30_000)).toBe(500);
  });

  it("goes into debt on an unchecked charge and admits nothing until it is repaid", () => {
    const bucket = new ContinuousBucket(10_000, MINUTE, 0);
    bucket.take(15_000, 0);
    expect(bucket.level(0)).toBe(-5_000);
    expect(bucket.waitMs(0, 0)).toBe(30_000);
    expect(bucket.resetMs(0)).toBe(90_000);
  });

  it("reset is the time to full from the exact level", () => {
    const bucket = new ContinuousBucket(14_400, 86_400_000, 0);
    bucket.take(30, 0);
    expect(bucket.resetMs(0)).toBe(180_000);
    expect(bucket.resetMs(440)).toBeCloseTo(179_560, 6);
    expect(bucket.resetMs(180_000)).toBe(0);
  });

  it("admits a cost at exactly the computed wait, whatever float rounding does", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.constantFrom(1_000, MINUTE, 86_400_000),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (limit, period, drainFraction, costFraction, start) => {
          const bucket = new ContinuousBucket(limit, period, start);
          bucket.take(limit * drainFraction, start);
          const cost = limit * costFraction;
          const wait = bucket.waitMs(cost, start);
          expect(Number.isFinite(wait)).toBe(true);
          expect(bucket.waitMs(cost, start + wait)).toBe(0);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe("FixedWindowCounter", () => {
  it("allows the limit per window and resets at boundaries aligned to the clock", () => {
    const counter = new FixedWindowCounter(100, MINUTE, 45_000);
    counter.take(100, 45_000);
    expect(counter.waitMs(1, 59_999)).toBe(1);
    expect(counter.resetMs(45_000)).toBe(15_000);
    expect(counter.waitMs(1, 60_000)).toBe(0);
    expect(counter.level(60_000)).toBe(100);
  });

  it("refunds into the window the charge was made in, and drops a refund for a window that is gone", () => {
    const counter = new FixedWindowCounter(1_000, MINUTE, 0);
    const epoch = counter.take(800, 59_000);
    counter.refund(300, 59_500, epoch);
    expect(counter.level(59_500)).toBe(500);
    const late = counter.take(400, 59_900);
    counter.refund(400, 60_100, late);
    expect(counter.level(60_100)).toBe(1_000);
  });

  it("reports a cost above the window's allowance as never fitting", () => {
    expect(new FixedWindowCounter(20, 10_000, 0).waitMs(21, 0)).toBe(Infinity);
  });

  it("stays in debt until the boundary after an unchecked charge", () => {
    const counter = new FixedWindowCounter(10, MINUTE, 0);
    counter.take(15, 1_000);
    expect(counter.level(1_000)).toBe(-5);
    expect(counter.waitMs(0, 1_000)).toBe(59_000);
    expect(counter.waitMs(0, 60_000)).toBe(0);
  });
});
