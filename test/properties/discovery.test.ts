/**
 * Discovery without headers: against a provider that sends no rate-limit headers, `new Limiter()` holds an
 * adaptive concurrency limit. Whatever the provider answers, the limit stays in [1, ceiling], and one burst of
 * 429s (of calls admitted before the cut) cuts once.
 *
 * The model, written from the documented rules alone (docs/header-sync.md, "Providers that send no headers"):
 * the limit starts at 1; until the first cut each success adds one, after it one per as many successes as the
 * limit, and only while at least half of it is in flight; a 429 of a call admitted after the last cut multiplies it
 * by 0.7 (rounded down, at least 1) and starts a new episode (the admissions counted then); a success of a call
 * admitted by the last cut changes nothing; never above 256. The request rate (`rpm`), as {@link RateModel} says.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, type Reservation } from "../../src/index.js";
import { installFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const CEILING = 256;

type Step =
  | { kind: "admit"; n: number }
  | { kind: "answer"; index: number; ok: boolean; hintS: number }
  | { kind: "burst" }
  | { kind: "wait"; ms: number };

/** A 429's retry-after, in seconds: mostly a bucket's short one, sometimes a window's turn. */
const hint = fc.oneof(
  { arbitrary: fc.constant(1), weight: 4 },
  { arbitrary: fc.integer({ min: 1, max: 10 }), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 60 }), weight: 1 },
);

// Weighted so that runs often reach a measured rate (two episodes 10 s apart) and grow it.
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("admit" as const), n: fc.integer({ min: 1, max: 300 }) }), weight: 3 },
  {
    arbitrary: fc.record({ kind: fc.constant("answer" as const), index: fc.nat(), ok: fc.boolean(), hintS: hint }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("answer" as const), index: fc.nat(), ok: fc.constant(true), hintS: hint }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: "burst" as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 15_000 }) }), weight: 3 },
);

class Model {
  limit = 1;
  cutAt = 0;
  slowStart = true;
  successes = 0;
  cuts = 0;

  served(seq: number, inFlight: number): void {
    if (seq <= this.cutAt || this.limit >= CEILING || inFlight < this.limit / 2) return;
    if (!this.slowStart && ++this.successes < this.limit) return;
    this.successes = 0;
    this.limit++;
  }

  /** Returns whether the 429 began an episode. */
  limited(seq: number, admissions: number): boolean {
    if (seq <= this.cutAt) return false;
    this.cutAt = admissions;
    this.slowStart = false;
    this.successes = 0;
    this.cuts++;
    this.limit = Math.max(1, Math.floor(this.limit * 0.7));
    return true;
  }
}

/**
 * The discovered request rate: measured over a stretch between two episodes at least 10 s apart (calls admitted
 * after the first, served before the second, a minute's worth), lowered but never raised by a later measurement and
 * never below half of itself at once; one more call a minute per 5 successes once known. An episode whose hint is
 * 5 s or more measures nothing and leaves no stretch open.
 */
class RateModel {
  perMinute: number | undefined;
  openedAt: number | undefined;
  openedSeq = 0;
  servedSince = 0;
  sinceGrowth = 0;

  served(seq: number): void {
    if (this.openedAt !== undefined && seq > this.openedSeq) this.servedSince++;
    if (this.perMinute === undefined || ++this.sinceGrowth < 5) return;
    this.sinceGrowth = 0;
    this.perMinute++;
  }

  episode(admissions: number, now: number, hintMs: number): void {
    if (hintMs >= 5_000) {
      this.openedAt = undefined;
      return;
    }
    if (this.openedAt !== undefined) {
      const span = now - this.openedAt;
      if (span < 10_000) return;
      const measured = Math.max(1, Math.floor((this.servedSince * 60_000) / span));
      this.perMinute =
        this.perMinute === undefined
          ? measured
          : Math.min(this.perMinute, Math.max(measured, Math.ceil(this.perMinute / 2)));
      this.sinceGrowth = 0;
    }
    this.openedAt = now;
    this.openedSeq = admissions;
    this.servedSince = 0;
  }
}

interface Call {
  readonly reservation: Reservation;
  readonly seq: number;
}

describe("discovery without headers (property)", () => {
  it("the limit and the rate follow the model, the limit stays in [1, 256], and one burst of 429s cuts once", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 150, size: "max" }), async (steps) => {
        const time = installFakeTime();
        try {
          const limiter = new Limiter();
          const model = new Model();
          const rate = new RateModel();
          let admissions = 0;
          const inFlight: Call[] = [];
          // `inFlight` does not hold the call answered (taken out first): the limiter counts it until its release.
          const answer = (call: Call, ok: boolean, hintS = 1): void => {
            if (ok) {
              model.served(call.seq, inFlight.length + 1);
              rate.served(call.seq);
            } else if (model.limited(call.seq, admissions)) rate.episode(admissions, performance.now(), hintS * 1_000);
            call.reservation.sync(ok ? {} : { "retry-after": String(hintS) }, { status: ok ? 200 : 429 });
            call.reservation.release();
          };
          for (const s of steps) {
            if (s.kind === "admit") {
              // After a cut the calls in flight may exceed the limit: none is admitted until they fall below it.
              const before = inFlight.length;
              for (let i = 0; i < s.n; i++) {
                const reservation = limiter.tryAcquire(1);
                if (reservation === undefined) break;
                inFlight.push({ reservation, seq: ++admissions });
              }
              expect(inFlight.length).toBeLessThanOrEqual(Math.max(model.limit, before));
            } else if (s.kind === "answer" && inFlight.length > 0) {
              const [call] = inFlight.splice(s.index % inFlight.length, 1);
              answer(call!, s.ok, s.hintS);
            } else if (s.kind === "burst") {
              const cutsBefore = model.cuts;
              const fresh = inFlight.some((call) => call.seq > model.cutAt);
              while (inFlight.length > 0) answer(inFlight.pop()!, false);
              // The whole burst is one episode: one cut at most.
              expect(model.cuts - cutsBefore).toBe(fresh ? 1 : 0);
            } else if (s.kind === "wait") {
              await time.timers.tickAsync(s.ms);
            }
            const snapshot = limiter.snapshot();
            const limit = snapshot.concurrency?.limit;
            expect(limit).toBe(model.limit);
            const rpm = snapshot.dimensions.rpm;
            expect(rpm?.limit).toBe(rate.perMinute);
            if (rpm) expect(rpm.capacity).toBe(Math.max(1, Math.floor(rpm.limit / 10)));
            expect(limit).toBeGreaterThanOrEqual(1);
            expect(limit).toBeLessThanOrEqual(CEILING);
          }
          await limiter.close();
        } finally {
          time.timers.uninstall();
        }
      }),
      { numRuns: numRuns(100) },
    );
  }, 300_000);
});
