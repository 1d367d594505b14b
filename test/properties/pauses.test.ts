/**
 * Trust, bounded: no single response can stop admission for longer than it can justify, and the user can always
 * lift what a response did. A roomy limiter (its buckets never hold a call back) meets 429s with any hint, on
 * every dimension or one, per-day or not, successes, `resume()`, `setLimits` and time; after each step,
 * `tryAcquire` is admitted exactly when the model below says no pause holds.
 *
 * The model, written from the documented rules alone (docs/header-sync.md, "429s"): a 429's hint is at most a
 * month; it pauses what the body names (tokens, requests) or everything. A pause of a minute or less, or of a
 * per-day quota, holds for its hint. A longer one holds a minute at a time: the first call admitted once a minute
 * is over goes through (the probe) and starts the next minute; a call admitted after the 429 that then succeeds
 * ends it. A 429 on the same dimensions while one holds extends it to the later end and starts a new minute.
 * `resume()` and `setLimits` end every pause.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, type Reservation } from "../../src/index.js";
import { installFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const MINUTE = 60_000;
const MONTH = 31 * 86_400_000;

type Named = "all" | "tokens" | "requests";

type Step =
  | { kind: "429"; named: Named; seconds: number; perDay: boolean }
  | { kind: "wait"; ms: number }
  | { kind: "success" }
  | { kind: "lastCallSucceeded" }
  | { kind: "resume" }
  | { kind: "setLimits" };

interface ModelPause {
  until: number;
  perDay: boolean;
  /** Set by its last 429: longer than a minute from then, and not per-day. */
  probed: boolean;
  /** Admissions counted when its last 429 came. */
  seq: number;
  /** When the minute in force ends (probed), else `until`. */
  heldUntil: number;
}

/** The rules above, nothing of the limiter's. */
class Model {
  private readonly pauses = new Map<Named, ModelPause>();
  admissions = 0;

  rateLimited(named: Named, hintMs: number, perDay: boolean, now: number): void {
    this.expire(now);
    if (hintMs <= 0) return;
    const old = this.pauses.get(named);
    const until = Math.max(old?.until ?? 0, now + hintMs);
    const isPerDay = (old?.perDay ?? false) || perDay;
    const probed = !isPerDay && until - now > MINUTE;
    const heldUntil = probed ? Math.min(until, now + MINUTE) : until;
    this.pauses.set(named, { until, perDay: isPerDay, probed, seq: this.admissions, heldUntil });
  }

  /** Whether a call is admitted now; if so it is counted, and it is the probe of each pause whose minute is over. */
  admit(now: number): boolean {
    this.expire(now);
    for (const p of this.pauses.values()) if (p.heldUntil > now) return false;
    this.admissions++;
    for (const p of this.pauses.values()) if (p.probed) p.heldUntil = Math.min(p.until, now + MINUTE);
    return true;
  }

  /** The call admitted `seq`th succeeded (Infinity: headers taken as news of now). */
  succeeded(seq: number, now: number): void {
    this.expire(now);
    for (const [named, p] of this.pauses) if (p.probed && seq > p.seq) this.pauses.delete(named);
  }

  liftAll(): void {
    this.pauses.clear();
  }

  /** The pauses standing, by when each ends at the latest. */
  standing(now: number): number[] {
    this.expire(now);
    return [...this.pauses.values()].map((p) => p.until).sort((a, b) => a - b);
  }

  private expire(now: number): void {
    for (const [named, p] of this.pauses) if (p.until <= now) this.pauses.delete(named);
  }
}

const BODIES: Record<Named, Record<string, unknown> | undefined> = {
  all: undefined,
  tokens: { type: "tokens" },
  requests: { type: "requests" },
};

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("429" as const),
      named: fc.constantFrom<Named>("all", "tokens", "requests"),
      seconds: fc.oneof(
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 400 * 86_400 }),
        fc.constantFrom(13_262, 86_400, 366 * 86_400, 99_999_999_999),
      ),
      perDay: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("wait" as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 3 * MINUTE }), fc.integer({ min: 0, max: 40 * 86_400_000 })),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "success" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "lastCallSucceeded" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "resume" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "setLimits" as const }) },
);

describe("pauses: bounded by what a response justifies, always liftable by the user", () => {
  it("tryAcquire is admitted exactly when the model says no pause holds", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const time = installFakeTime();
        try {
          const limiter = new Limiter({ rpm: 1_000_000, tpm: 1e12, provider: "openai", initial: "full" });
          const model = new Model();
          let last: { call: Reservation; seq: number } | undefined;
          for (const s of steps) {
            const now = time.clock.now();
            switch (s.kind) {
              case "429": {
                const error: Record<string, unknown> = { ...BODIES[s.named] };
                if (s.perDay) error.message = "Rate limit exceeded: free-models-per-day.";
                const body = Object.keys(error).length === 0 ? undefined : { error };
                limiter.sync({ "retry-after": String(s.seconds) }, { status: 429, body });
                model.rateLimited(s.named, Math.min(s.seconds * 1_000, MONTH), s.perDay, now);
                break;
              }
              case "wait":
                await time.timers.tickAsync(s.ms);
                break;
              case "success":
                limiter.sync({}, { status: 200 });
                model.succeeded(Infinity, now);
                break;
              case "lastCallSucceeded":
                if (!last) break;
                last.call.sync({}, { status: 200 });
                model.succeeded(last.seq, now);
                break;
              case "resume":
                limiter.resume();
                model.liftAll();
                break;
              case "setLimits":
                limiter.setLimits({ rpm: 1_000_000 });
                model.liftAll();
                break;
            }
            const at = time.clock.now();
            const call = limiter.tryAcquire(1);
            expect(call !== undefined).toBe(model.admit(at));
            if (call) {
              last?.call.release();
              last = { call, seq: model.admissions };
            }
            const wall = time.clock.wallNow() - at;
            expect((limiter.snapshot().pauses ?? []).map((p) => p.until).sort((a, b) => a - b)).toEqual(
              model.standing(at).map((until) => until + wall),
            );
          }
          // The user can always lift it: the next call is admitted at once.
          limiter.resume();
          const call = limiter.tryAcquire(1);
          expect(call).toBeDefined();
          call?.release();
          last?.call.release();
          await limiter.close();
        } finally {
          time.timers.uninstall();
        }
      }),
      { numRuns: numRuns(300) },
    );
  });
});
