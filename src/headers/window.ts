import { DAY, HOUR, MINUTE, SECOND } from "./bounds.js";
import type { Span } from "./durations.js";
import type { WindowSource } from "./types.js";

/** A bucket's window and how it was decided. */
export interface WindowDecision {
  /** The window, in ms. */
  windowMs: number;
  /** How it was decided. */
  windowSource: WindowSource;
}

/** The windows providers meter over, shortest first; the last is the longest plausible. */
const PLAUSIBLE_WINDOWS: readonly number[] = [SECOND, 10 * SECOND, MINUTE, HOUR, DAY];

/** Nothing could be told: take the longest plausible window, the slowest refill (the safe side). */
export const ASSUMED_DAY: WindowDecision = { windowMs: DAY, windowSource: "assumed" };

/** Counters and clocks move between the moments a server reads them: allow this much relative error. */
const SLACK = 1.1;
/** The triple says something only when the window's bounds are within this factor of each other. */
const MAX_SPREAD = 2;

/**
 * The window of a continuously refilling bucket, from the limit / remaining / reset triple.
 *
 * `reset` is the time to refill `limit − remaining` at `limit / window` (providers.md:
 * 5000 RPM with 4999 left resets in `12ms`), so `window = reset × limit / (limit − remaining)`.
 * The reset's precision bounds the estimate; when the bounds are tight it snaps to the
 * shortest plausible window that is not below them (1 s, 10 s, 1 min, 1 h, 1 day): close
 * ones within 10%, others rounded up, never down, so a triple that fits no plausible
 * window yields a slower refill, not a faster one. When the triple cannot tell
 * (remaining == limit, no reset, or too coarse a reset), `fallback` stands unless even the
 * lower bound exceeds it, and then the longest plausible window is assumed.
 */
export function inferWindow(
  limit: number | undefined,
  remaining: number | undefined,
  reset: Span | undefined,
  fallback: WindowDecision,
): WindowDecision {
  if (limit === undefined || remaining === undefined || reset === undefined || remaining >= limit) return fallback;
  const scale = limit / (limit - remaining);
  const low = Math.max(0, reset.ms - reset.resolutionMs) * scale;
  const high = (reset.ms + reset.resolutionMs) * scale;
  const atLeast = low / SLACK;
  if (low > 0 && high <= MAX_SPREAD * low) {
    const snapped = PLAUSIBLE_WINDOWS.find((w) => w >= atLeast);
    if (snapped !== undefined) return { windowMs: snapped, windowSource: "inferred" };
  } else if (atLeast <= fallback.windowMs) {
    return fallback;
  }
  return ASSUMED_DAY;
}
