/**
 * Discovery without headers: against a provider that sends no rate-limit headers, `new Limiter()` holds an
 * adaptive concurrency limit. Whatever the provider answers, the limit stays in [1, ceiling], and one burst of
 * 429s (of calls admitted before the cut) cuts once.
 *
 * The model, written from the documented rules alone (docs/header-sync.md, "Providers that send no headers"):
 * the limit starts at 1; until the first cut each success adds one, after it one per as many successes as the
 * limit; a 429 of a call admitted after the last cut multiplies it by 0.7 (rounded down, at least 1) and starts
 * a new episode (the admissions counted then); a success of a call admitted by the last cut changes nothing;
 * never above 256.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, type Reservation } from "../../src/index.js";
import { installFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const CEILING = 256;

type Step =
  | { kind: "admit"; n: number }
  | { kind: "answer"; index: number; ok: boolean }
  | { kind: "burst" }
  | { kind: "wait"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("admit" as const), n: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ kind: fc.constant("answer" as const), index: fc.nat(), ok: fc.boolean() }),
  fc.record({ kind: fc.constant("answer" as const), index: fc.nat(), ok: fc.constant(true) }),
  fc.constant({ kind: "burst" as const }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 5_000 }) }),
);

class Model {
  limit = 1;
  cutAt = 0;
  slowStart = true;
  successes = 0;
  cuts = 0;

  served(seq: number): void {
    if (seq <= this.cutAt || this.limit >= CEILING) return;
    if (!this.slowStart && ++this.successes < this.limit) return;
    this.successes = 0;
    this.limit++;
  }

  limited(seq: number, admissions: number): void {
    if (seq <= this.cutAt) return;
    this.cutAt = admissions;
    this.slowStart = false;
    this.successes = 0;
    this.cuts++;
    this.limit = Math.max(1, Math.floor(this.limit * 0.7));
  }
}

interface Call {
  readonly reservation: Reservation;
  readonly seq: number;
}

describe("discovery without headers (property)", () => {
  it("the limit follows the model, stays in [1, 256], and one burst of 429s cuts once", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const time = installFakeTime();
        try {
          const limiter = new Limiter();
          const model = new Model();
          let admissions = 0;
          let inFlight: Call[] = [];
          const answer = (call: Call, ok: boolean): void => {
            if (ok) model.served(call.seq);
            else model.limited(call.seq, admissions);
            call.reservation.sync(ok ? {} : { "retry-after": "1" }, { status: ok ? 200 : 429 });
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
              answer(call!, s.ok);
            } else if (s.kind === "burst") {
              const cutsBefore = model.cuts;
              const burst = inFlight;
              inFlight = [];
              const fresh = burst.some((call) => call.seq > model.cutAt);
              for (const call of burst) answer(call, false);
              // The whole burst is one episode: one cut at most.
              expect(model.cuts - cutsBefore).toBe(fresh ? 1 : 0);
            } else if (s.kind === "wait") {
              await time.timers.tickAsync(s.ms);
            }
            const limit = limiter.snapshot().concurrency?.limit;
            expect(limit).toBe(model.limit);
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
  });
});
