import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ALARM_LATENESS_MS } from "../../src/admission/alarm.js";
import { CREDIT_MS } from "../../src/admission/credit.js";
import { Limiter } from "../../src/index.js";
import type { Booking, SharedLayout } from "../../src/store/shared-store.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "../shared/in-process-store.js";
import { ProviderBucket } from "./provider-bucket.js";
import { numRuns } from "./runs.js";

const time = useFakeTime();

/** A store that counts the requests booked, and the credit among them (sent with the longer arrival delay). */
class CountingStore extends InProcessStore {
  requests = 0;
  slices = 0;
  constructor(private readonly arrivalDelayMs: number) {
    // Refill held back after a draw from a nearly full bucket, as the booking script does.
    super(() => performance.now(), 60_000, "fail-closed", true);
  }
  override book(layout: SharedLayout, requests: readonly (readonly number[])[]): Promise<Booking> {
    this.requests += requests.length;
    if (layout.arrivalDelayMs === this.arrivalDelayMs + ALARM_LATENESS_MS + CREDIT_MS) this.slices++;
    return super.book(layout, requests);
  }
}

/** One caller: from `startMs`, `calls` calls one after another, each awaited through to its settle. */
interface Caller {
  /** Which of the processes (limiters on one store) it calls through. */
  process: number;
  startMs: number;
  calls: number;
  /** Reserved tokens, as a fraction of the bucket. */
  cost: number;
  /** Fraction of the reservation each call uses. */
  used: number;
  /** Fraction of `arrivalDelayMs` each call takes to reach the provider. */
  delay: number;
  /** From arrival until the provider completes and the caller settles. */
  latencyMs: number;
  /** Between one call's settle and the caller's next acquire. */
  gapMs: number;
  /** Starts in the same tick as the others that do (`startMs` 0), not a timer's turn later. */
  together?: boolean;
}

const scenario = fc.record({
  limit: fc.integer({ min: 1, max: 5_000 }),
  windowMs: fc.constantFrom(1_000, 10_000, 60_000),
  // Credit needs room for a request and 16 more within 1/64 of every bucket.
  requests: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 64, max: 2_000 })),
  arrivalDelayMs: fc.constantFrom(0, 0, 100, 500),
  processes: fc.integer({ min: 1, max: 3 }),
  callers: fc.array(
    fc.record({
      process: fc.integer({ min: 0, max: 2 }),
      startMs: fc.integer({ min: 0, max: 5_000 }),
      calls: fc.integer({ min: 1, max: 60 }),
      cost: fc.oneof(fc.double({ min: 0, max: 1 / 64, noNaN: true }), fc.double({ min: 0, max: 0.2, noNaN: true })),
      used: fc.double({ min: 0, max: 1, noNaN: true }),
      delay: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })),
      // Mostly callers that come straight back: those book credit.
      latencyMs: fc.constantFrom(0, 0, 0, 10, 300),
      gapMs: fc.constantFrom(0, 0, 0, 2, 60),
    }),
    { minLength: 1, maxLength: 8 },
  ),
});

/** Calls checked, and those of them admitted from credit, over the property's runs. */
let admissions = 0;
let fromCredit = 0;

/**
 * The same callers starting together, in one tick, and coming straight back, in loops: a process's whole
 * queue is booked at once, again and again, and books the next batch ahead as credit.
 */
const crowd: typeof scenario = scenario.map((s) => ({
  ...s,
  callers: s.callers.map((c) => ({ ...c, startMs: 0, gapMs: 0 as const, together: true })),
}));

const neverRejected = (scenarios: typeof scenario) =>
  fc.asyncProperty(scenarios, async ({ limit, windowMs, requests, arrivalDelayMs, processes, callers }) => {
    const store = new CountingStore(arrivalDelayMs);
    const limiters = Array.from(
      { length: processes },
      () =>
        new Limiter({
          rpm: requests,
          limits: { tokens: { unit: "tokens", limit, windowMs } },
          arrivalDelayMs,
          store,
          onWarning: () => {},
        }),
    );
    const t0 = performance.now();
    const tokens = new ProviderBucket(limit, windowMs, limit);
    const perMinute = new ProviderBucket(requests, 60_000, requests);
    const rejected: string[] = [];
    const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
    const run = async (caller: Caller): Promise<void> => {
      const limiter = limiters[caller.process % processes]!;
      const cost = Math.round(caller.cost * limit);
      if (!caller.together) await sleep(caller.startMs);
      for (let i = 0; i < caller.calls; i++) {
        const reservation = await limiter.acquire(cost);
        // Whole milliseconds, and none at all for 0: timers round a fraction up, past the delay allowed.
        const delayMs = Math.floor(caller.delay * arrivalDelayMs);
        if (delayMs > 0) await sleep(delayMs);
        const now = performance.now() - t0;
        if (!perMinute.charge(1, now)) rejected.push(`requests at ${now}`);
        if (!tokens.charge(cost, now)) rejected.push(`${cost} tokens at ${now}`);
        if (caller.latencyMs > 0) await sleep(caller.latencyMs);
        const used = Math.round(caller.used * cost);
        tokens.refund(cost - used, performance.now() - t0);
        reservation.settle(used);
        reservation.release();
        if (caller.gapMs > 0) await sleep(caller.gapMs);
      }
    };
    const done = callers.map(run);
    await time.timers.runAllAsync();
    await Promise.all(done);
    await Promise.all(limiters.map((limiter) => limiter.close()));
    expect(rejected).toEqual([]);
    const calls = callers.reduce((sum, caller) => sum + caller.calls, 0);
    admissions += calls;
    // Each booked request not credit admitted at most one call; credit admitted the rest.
    fromCredit += Math.max(0, calls - (store.requests - store.slices));
  });

/**
 * Found by this property (session 8): a booking for later on requests, the tokens bucket full meanwhile, was admitted
 * when its whole-millisecond alarm fired, up to 1 ms after it came due. The provider's bucket lost that much more
 * refill than the store held back, and the last call of the tokens caller was rejected by 0.00005 tokens.
 */
const ALARM_LATE_BY_A_FRACTION = {
  limit: 17,
  windowMs: 60000,
  requests: 76,
  arrivalDelayMs: 0,
  processes: 1,
  callers: [
    { process: 0, startMs: 0, calls: 2, cost: 0, used: 0, delay: 0, latencyMs: 0, gapMs: 0 },
    { process: 0, startMs: 0, calls: 19, cost: 0, used: 0, delay: 0, latencyMs: 0, gapMs: 0 },
    { process: 0, startMs: 1, calls: 10, cost: 0.08823529411764706, used: 0.75, delay: 0, latencyMs: 0, gapMs: 0 },
    { process: 0, startMs: 0, calls: 19, cost: 0, used: 0, delay: 0, latencyMs: 0, gapMs: 0 },
    { process: 0, startMs: 0, calls: 35, cost: 0, used: 0, delay: 0, latencyMs: 0, gapMs: 0 },
  ],
};

/**
 * Found by this property (session 9): a booking for later took off the refill that would overflow the provider's
 * bucket by the time it arrives, reckoned on the level when it was booked. A refund that came after it (a call that
 * used nothing) filled the provider's tokens bucket, which had not seen the booked draw, so refill overflowed there
 * from then on while the store kept it: nine seconds later the provider rejected a call the store admitted. The
 * store now keeps the draws the provider has not seen and holds the level under capacity less them.
 */
const REFUND_WHILE_BOOKED = {
  limit: 3,
  windowMs: 60000,
  requests: 10,
  arrivalDelayMs: 0,
  processes: 1,
  callers: [
    { process: 0, startMs: 51, calls: 4, cost: 1 / 6, used: 0.5, delay: 0, latencyMs: 0, gapMs: 0 },
    { process: 0, startMs: 0, calls: 6, cost: 1 / 6, used: 0, delay: 0, latencyMs: 10, gapMs: 0 },
    { process: 0, startMs: 0, calls: 4, cost: 0, used: 0, delay: 0, latencyMs: 0, gapMs: 0 },
  ],
};

describe("credit through a shared store (invariant 1 across processes)", () => {
  it("a provider metering exactly as configured never rejects a call admitted from credit or by a booking, from any process", async () => {
    const examples = [[ALARM_LATE_BY_A_FRACTION], [REFUND_WHILE_BOOKED]];
    await fc.assert(neverRejected(scenario), { numRuns: numRuns(150), examples });
    // The property is about credit: a good part of the calls it checks were admitted from it.
    expect(fromCredit / admissions).toBeGreaterThan(0.05);
  });

  it("…nor one admitted from credit booked with a whole queue of callers in loops", async () => {
    await fc.assert(neverRejected(crowd), { numRuns: numRuns(150) });
  });
});
