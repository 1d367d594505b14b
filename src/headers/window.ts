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

/**
 * Nothing told the window: take a minute, the shortest window providers meter a budget over
 * that says nothing of its own. Too short costs one 429, whose retry hint then lengthens it
 * (see src/sync/unknown-windows.ts); too long (a minute taken for a day) stops a service for a day.
 */
export const UNKNOWN_WINDOW: WindowDecision = { windowMs: MINUTE, windowSource: "assumed" };

/** The shortest plausible window of at least `ms`; `undefined` beyond a day. */
function plausibleAtLeast(ms: number): number | undefined {
  return PLAUSIBLE_WINDOWS.find((w) => w >= ms);
}

/** The shortest plausible window of at least `ms`, a day at most. */
export function plausibleWindowOf(ms: number): number {
  return plausibleAtLeast(ms) ?? DAY;
}

/** Counters and clocks move between the moments a server reads them: allow this much relative error. */
export const SLACK = 1.1;
/** The triple says something only when the window's bounds are within this factor of each other. */
const MAX_SPREAD = 2;

/**
 * The window of a continuously refilling bucket, from the limit / remaining / reset triple.
 *
 * `reset` is the time to refill `limit − remaining` at `limit / window` (docs/providers.md#openai:
 * 5000 RPM with 4999 left resets in `12ms`), so `window = reset × limit / (limit − remaining)`.
 * The reset's precision bounds the estimate; when the bounds are tight it snaps to the
 * shortest plausible window that is not below them (1 s, 10 s, 1 min, 1 h, 1 day): close
 * ones within 10%, others rounded up, never down, so a triple that fits no plausible
 * window yields a slower refill, not a faster one. When the triple cannot tell
 * (remaining == limit, no reset, or too coarse a reset), `fallback` stands unless even the
 * lower bound exceeds it. A window it bounds but does not tell (a loose bound above the
 * fallback, or beyond a day) is assumed: the shortest plausible one the bound allows, a
 * day at most, which later evidence may still move.
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
    const snapped = plausibleAtLeast(atLeast);
    if (snapped !== undefined) return { windowMs: snapped, windowSource: "inferred" };
  } else if (atLeast <= fallback.windowMs) {
    return fallback;
  }
  return { windowMs: plausibleWindowOf(atLeast), windowSource: "assumed" };
}
