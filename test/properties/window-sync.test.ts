import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { formatGoDuration } from "../../src/testing/go-duration.js";
import { useFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const time = useFakeTime();

const PERIOD_MS = 60_000;

/**
 * A provider counting requests in fixed minute windows (boundaries at
 * `offsetMs` + k minutes), written here apart from src: it admits up to
 * `limit` per window and reports OpenAI's headers, the reset being the time
 * to the boundary.
 */
class WindowProvider {
  private window = Number.NEGATIVE_INFINITY;
  private counted = 0;

  constructor(
    readonly limit: number,
    private readonly offsetMs: number,
  ) {}

  /** Which window `now` falls in. */
  windowAt(now: number): number {
    return Math.floor((now - this.offsetMs) / PERIOD_MS);
  }

  boundaryAfter(now: number): number {
    return this.offsetMs + (this.windowAt(now) + 1) * PERIOD_MS;
  }

  /** Counts a call if the window has room; `false` is a 429. */
  admit(now: number): boolean {
    this.roll(now);
    if (this.counted >= this.limit) return false;
    this.counted++;
    return true;
  }

  headers(now: number, accepted: boolean): Record<string, string> {
    this.roll(now);
    const resetMs = this.boundaryAfter(now) - now;
    return {
      "x-ratelimit-limit-requests": String(this.limit),
      "x-ratelimit-remaining-requests": String(this.limit - this.counted),
      "x-ratelimit-reset-requests": formatGoDuration(resetMs),
      ...(accepted ? {} : { "retry-after-ms": String(resetMs) }),
    };
  }

  private roll(now: number): void {
    const window = this.windowAt(now);
    if (window === this.window) return;
    this.window = window;
    this.counted = 0;
  }
}

describe("fixed windows learned from headers, against an independent window model", () => {
  /*
   * Before the headers show a window the limiter meters a continuous bucket
   * (a window's first minute can then take more than its limit: the
   * provider's 429s say so); from the moment they show one, the claims are exact.
   */
  it("once a window shows, no admitted call is over its window's limit and the local reset is never before the provider's; nothing NaN, nothing above the configured limit", async () => {
    const step = fc.record({ advance: fc.nat({ max: 30_000 }), calls: fc.nat({ max: 40 }) });
    const scenario = fc.record({
      limit: fc.integer({ min: 1, max: 100 }),
      offsetMs: fc.nat({ max: PERIOD_MS - 1 }),
      steps: fc.array(step, { maxLength: 20 }),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ limit, offsetMs, steps }) => {
        const provider = new WindowProvider(limit, offsetMs);
        const limiter = new Limiter({ rpm: limit, provider: "openai" });
        let shownInWindow: number | undefined;
        const admittedIn = new Map<number, number>();
        for (const { advance, calls } of steps) {
          await time.timers.tickAsync(advance);
          for (let i = 0; i < calls; i++) {
            const reservation = limiter.tryAcquire(1);
            if (!reservation) break;
            const now = performance.now();
            const window = provider.windowAt(now);
            admittedIn.set(window, (admittedIn.get(window) ?? 0) + 1);
            const accepted = provider.admit(now);
            if (shownInWindow !== undefined) expect(accepted, `admitted past the window's limit at ${now}`).toBe(true);
            reservation.sync(provider.headers(now, accepted), { status: accepted ? 200 : 429 });
            reservation.release();
            const rpm = limiter.snapshot().dimensions.rpm!;
            for (const n of Object.values(rpm)) expect(Number.isFinite(n)).toBe(true);
            expect(rpm.capacity).toBeGreaterThan(0);
            expect(rpm.limit).toBeLessThanOrEqual(limit);
            expect(rpm.available).toBeGreaterThanOrEqual(0);
            expect(rpm.available).toBeLessThanOrEqual(rpm.capacity);
            if (rpm.resetInMs === undefined) continue;
            shownInWindow ??= window;
            expect(now + rpm.resetInMs).toBeGreaterThanOrEqual(provider.boundaryAfter(now));
          }
        }
        // Every window begun after one showed held no more than the provider allows.
        for (const [window, admitted] of admittedIn)
          if (shownInWindow !== undefined && window > shownInWindow) expect(admitted).toBeLessThanOrEqual(limit);
        limiter.close();
      }),
      { numRuns: numRuns(150) },
    );
  });
});
