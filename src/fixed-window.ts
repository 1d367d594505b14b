import type { ProviderName, ReportedDimension } from "./headers/types.js";
import type { Meter } from "./reservation.js";

/**
 * A reset this far from what a continuous bucket would report is a window
 * boundary: a second for formats that carry whole seconds (RFC 3339, `6m0s`)
 * and for the `Date`-corrected wall clock, plus two units' refill for the
 * floored remaining.
 */
const RESET_SLACK_MS = 1_000;
/** A provider level that jumps back by more than this fraction of capacity, beyond refill, is a window resetting. */
const JUMP_FRACTION = 1 / 4;
/** Sub-windows last whole seconds (Azure: 1 s or 10 s). */
const SECOND = 1_000;

/** What one sync tells about a meter's window. */
export interface WindowReading {
  /** The provider's current window began at or before this monotonic time. */
  readonly startedBy: number;
  /** How long one window lasts. */
  readonly periodMs: number;
}

/**
 * How long one of the dimension's windows lasts: a window holds `capacity`
 * and the long-run rate is `limit / windowMs`. A per-minute limit gives the
 * minute; Azure's sub-window allowance (floor(limit / 6) per 10 s, taken as the
 * capacity) gives a hair under 10 s, rounded up to the whole second (late is
 * the safe side).
 */
export function windowPeriodMs(meter: Meter): number {
  const { limit, windowMs, capacity } = meter.dimension;
  const period = (capacity * windowMs) / limit;
  return period >= windowMs ? windowMs : Math.ceil(period / SECOND - 1e-9) * SECOND;
}

/**
 * Whether a reset contradicts a continuous bucket, whose reset is the time to
 * refill what is missing: `(limit − remaining) × window / limit`
 * (shared/providers.md). Only a window told by the dialect can be tested: an
 * inferred one was computed from that very relation.
 */
function resetPointsAtBoundary(reported: ReportedDimension): boolean {
  const { limit, remaining, windowMs, resetMs, windowSource } = reported;
  if (limit === undefined || remaining === undefined || windowMs === undefined || resetMs === undefined || windowSource !== "dialect") return false;
  const unitMs = windowMs / limit;
  const toFull = (limit - remaining) * unitMs;
  return Math.abs(resetMs - toFull) > RESET_SLACK_MS + 2 * unitMs;
}

/**
 * Reads what a response says about fixed windows on `meter`, marking it
 * windowed once the headers show one: a reset that points at a boundary
 * rather than at the time to refill, Azure's sub-window allowance (sent with
 * no reset), or a level that jumps back up by more than refill and this
 * client's refunds explain; such a jump is also when a window began. `providerGain` and `localGain` are how the provider's and the local
 * level moved since the last sync, `dt` how long ago that was.
 * Returns where the provider's current window began at the latest, when this
 * response tells it.
 */
export function readWindow(meter: Meter, reported: ReportedDimension, provider: ProviderName | "unknown", moved: { providerGain: number; localGain: number; dt: number } | undefined, now: number): WindowReading | undefined {
  const periodMs = windowPeriodMs(meter);
  if (reported.resetMs !== undefined && reported.windowSource === "dialect") {
    if (!meter.windowed && !resetPointsAtBoundary(reported)) return undefined;
    meter.windowed = true;
    // Stamped at the latest now: the boundary is at or before now + reset (+1 ms for rounding to the ms).
    return { startedBy: now + reported.resetMs + 1 - periodMs, periodMs };
  }
  if (reported.resetMs !== undefined) return undefined;
  // Azure documents sub-windows; what it reports without a reset is one (see LearnedLimits).
  if (provider === "azure") meter.windowed = true;
  if (moved === undefined) return undefined;
  const { limit, windowMs, capacity } = meter.dimension;
  const refilled = meter.windowed ? 0 : (moved.dt * limit) / windowMs;
  const unexplained = moved.providerGain - Math.max(0, moved.localGain) - refilled;
  if (unexplained <= capacity * JUMP_FRACTION) return undefined;
  meter.windowed = true;
  // The jump happened since the last response: the window began at or before now.
  return { startedBy: now, periodMs };
}
