/**
 * Minimal cases the properties in invariants.test.ts shrank to, kept as
 * regression tests (each failed on the src the properties first ran against),
 * and one found while writing the harness's snapshot check.
 */
import { describe, expect, it } from "vitest";
import { Limiter, WaitTimeoutError } from "../../src/index.js";
import { flush, useFakeTime } from "../fake-time.js";

const time = useFakeTime();

describe("regressions found by the property tests", () => {
  it("3 conservation: a reservation from before a dimension was removed does not refund into the re-added one", () => {
    const limiter = new Limiter({ tpm: 1000, clock: time.clock });
    const old = limiter.tryAcquire(800)!;
    limiter.setLimits({ tpm: null });
    limiter.setLimits({ tpm: 1000 }); // a new, full bucket that never charged `old`
    expect(limiter.tryAcquire(1000)).toBeDefined();
    old.settle(0);
    // The new bucket gave out its 1000 and is empty: `old` owes it nothing and may give it nothing.
    expect(limiter.snapshot().dimensions.tpm!.available).toBe(0);
    expect(limiter.tryAcquire(800)).toBeUndefined();
  });

  it("3 conservation: replacing a custom dimension with another unit does not refund what was never charged", () => {
    const limiter = new Limiter({
      limits: { calls: { unit: "requests", limit: 10, windowMs: 60_000 } },
      clock: time.clock,
    });
    const reservation = limiter.tryAcquire(500)!; // 1 request charged on "calls"
    limiter.setLimits({ limits: { calls: { unit: "tokens", limit: 1000, windowMs: 60_000 } } });
    // Empty it, so a refund would show.
    expect(limiter.tryAcquire(limiter.snapshot().dimensions.calls!.available)).toBeDefined();
    const before = limiter.snapshot().dimensions.calls!.available;
    reservation.settle(100);
    // No tokens were ever charged on "calls", so settling 100 of 500 must not hand back 400.
    expect(limiter.snapshot().dimensions.calls!.available).toBe(before);
  });

  it("snapshot(): a custom dimension named like a snapshot field is refused, not hidden behind the field", () => {
    // snapshot() puts `queued` and `inFlight` next to the dimensions, so these names would be overwritten.
    for (const name of ["queued", "inFlight"]) {
      expect(() => new Limiter({ limits: { [name]: { unit: "tokens", limit: 100, windowMs: 60_000 } } }), name).toThrow(
        TypeError,
      );
    }
  });

  it("maxWaitMs: a request is not refused at once when the waiter ahead of it times out first", async () => {
    const limiter = new Limiter({ tpm: 1000, clock: time.clock });
    const inFlight = limiter.tryAcquire(600)!; // level 400; 600 held that a settle could still give back
    // Queued: it fits in time only if those 600 come back within 1 s; otherwise it times out at 1 s.
    const ahead = limiter.acquire(1000, { maxWaitMs: 1000 }).catch((error: unknown) => error);
    const behind = limiter.acquire(400, { maxWaitMs: 10_000 }).then(
      () => ({ admittedAt: performance.now() }),
      (error: unknown) => error,
    );
    await time.timers.tickAsync(1000);
    // With nothing else happening, `ahead` leaves at 1 s and the 400 already there admit `behind`.
    expect(await ahead).toBeInstanceOf(WaitTimeoutError);
    expect(await behind).toEqual({ admittedAt: 1000 });
    inFlight.release();
    await flush(time.timers);
  });
});
