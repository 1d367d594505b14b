import type { ProviderName, ReportedDimension } from "../headers/types.js";

/**
 * How far one reading's boundary may be off: a second for formats that carry
 * whole seconds (RFC 3339, `6m0s`, epoch seconds) and another for the `Date`
 * header that corrects the wall clock.
 */
export const RESET_SLACK_MS = 2_000;
/** Anthropic rounds token remainders to the nearest thousand (docs/providers.md#anthropic). */
const ANTHROPIC_TOKEN_STEP = 1_000;

/** One reset reading, as the monotonic moment it names. */
export interface ResetReading {
  /** `now + reset`: when the provider says the dimension is full again (a bucket) or the window ends. */
  readonly boundary: number;
  readonly remaining: number;
  readonly limit: number;
  /** Monotonic time it was read. */
  readonly at: number;
  /** How far `boundary` may be off, remaining's rounding included. */
  readonly slackMs: number;
}

/**
 * What a pair of readings shows about how the provider meters:
 * - `window`: the boundary held while a bucket's would have moved;
 * - `bucket`: the boundary moved as a bucket's does, and not by whole windows
 *   (a window ending between the readings);
 * - `too-close`: too little drawn or elapsed between them to tell: keep the
 *   earlier one and compare again later;
 * - `unrelated`: neither (a new window, or the limit changed): start afresh.
 */
export type ResetEvidence = "window" | "bucket" | "too-close" | "unrelated";

/**
 * A reading of `reported` at `now`, when it carries a reset and a window the
 * dialect names (an inferred window was computed from the bucket relation
 * itself, so it cannot tell the two apart), and a reset within that window: no
 * bucket takes longer than its window to refill and no window ends later than
 * its length, so a reset beyond it (a per-minute budget reset a day ahead) is
 * not evidence of either.
 */
export function resetReading(
  reported: ReportedDimension,
  provider: ProviderName | "unknown",
  now: number,
): ResetReading | undefined {
  const { limit, remaining, windowMs, resetMs, windowSource, unit } = reported;
  if (
    limit === undefined ||
    remaining === undefined ||
    windowMs === undefined ||
    resetMs === undefined ||
    windowSource !== "dialect" ||
    limit <= 0 ||
    resetMs > windowMs + RESET_SLACK_MS
  )
    return undefined;
  const step = provider === "anthropic" && unit !== "requests" ? ANTHROPIC_TOKEN_STEP : 1;
  return { boundary: now + resetMs, remaining, limit, at: now, slackMs: RESET_SLACK_MS + (step * windowMs) / limit };
}

/**
 * Compares two readings of one dimension. A continuous bucket's reset is the
 * time to refill what is missing, so between two readings its boundary moves
 * by exactly `(remaining₁ − remaining₂) × unit + elapsed` (draws push it
 * later, time spent full drags it along); a fixed window's stays put until
 * the window ends. Both sides of that comparison take the same error from a
 * skewed wall clock (absolute resets without a `Date` header) and from when
 * the provider stamped its headers, so neither can fake a window: only the
 * readings' rounding can, and the slack covers it.
 */
export function compareResets(
  earlier: ResetReading,
  later: ResetReading,
  windowMs: number,
  periodMs: number,
): ResetEvidence {
  if (earlier.limit !== later.limit) return "unrelated";
  const slack = earlier.slackMs + later.slackMs;
  const moved = later.boundary - earlier.boundary;
  const bucketMove = ((earlier.remaining - later.remaining) * windowMs) / later.limit + (later.at - earlier.at);
  const fitsBucket = Math.abs(moved - bucketMove) <= slack;
  const held = Math.abs(moved) <= slack;
  if (held) return fitsBucket ? "too-close" : "window";
  return fitsBucket && !nearWholeWindows(moved, periodMs, slack) ? "bucket" : "unrelated";
}

function nearWholeWindows(moved: number, periodMs: number, slack: number): boolean {
  const windows = Math.round(moved / periodMs);
  return windows !== 0 && Math.abs(moved - windows * periodMs) <= slack;
}
