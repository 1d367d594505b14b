import type { ProviderName, ReportedDimension } from "../headers/types.js";
import type { Dimension } from "../core/budget.js";
import type { SyncState } from "./state.js";
import { compareResets, resetReading } from "./reset-evidence.js";

/** A provider level that jumps back by more than this fraction of capacity, beyond refill, is a window resetting. */
const JUMP_FRACTION = 1 / 4;
/** Sub-windows last whole seconds (Azure: 1 s or 10 s). */
const SECOND = 1_000;

/**
 * Azure reports what its 1 s or 10 s sub-window allows (20 on a 120 RPM
 * deployment, docs/providers.md#azure-openai) and no reset to tell the window by.
 */
export function isSubWindowAllowance(provider: ProviderName | "unknown", reported: ReportedDimension): boolean {
  return provider === "azure" && reported.resetMs === undefined;
}

/** What one sync tells about a dimension's window. */
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
function windowPeriodMs({ limit, windowMs, capacity }: Dimension): number {
  const period = (capacity * windowMs) / limit;
  return period >= windowMs ? windowMs : Math.ceil(period / SECOND - 1e-9) * SECOND;
}

/**
 * A 429 on a windowed dimension: nothing more fits until its window ends, and
 * the retry hint says when. The hint was stamped at or before now and is
 * rounded up, so the end it gives is a late bound: the safe side. A hint
 * longer than a window is not about this one.
 */
export function windowFromRetryHint(
  state: SyncState,
  dimension: Dimension,
  retryAfterMs: number,
  now: number,
): WindowReading | undefined {
  const periodMs = windowPeriodMs(dimension);
  if (!state.windowed || retryAfterMs > periodMs) return undefined;
  return { startedBy: now + retryAfterMs - periodMs, periodMs };
}

/**
 * Reads what a response says about fixed windows on `dimension`. A dimension is
 * marked windowed when two readings of its reset point at the same boundary
 * while a bucket's would have moved (see {@link compareResets}: one reading
 * cannot tell, since a skewed wall clock or rounding shifts it), by Azure's
 * sub-window allowance (sent with no reset), or by a level that jumps back up
 * by more than refill and this client's refunds explain; such a jump is also
 * when a window began. Two readings whose boundary moved as a bucket's does
 * revoke window mode. `providerGain` and `localGain` are how the provider's
 * and the local level moved since the last sync, `dt` how long ago that was.
 * Returns where the provider's current window began at the latest when this
 * response tells it, or `"revoked"` when it shows a continuous bucket after all.
 */
export function readWindow(
  state: SyncState,
  dimension: Dimension,
  reported: ReportedDimension,
  provider: ProviderName | "unknown",
  moved: { providerGain: number; localGain: number; dt: number } | undefined,
  now: number,
): WindowReading | "revoked" | undefined {
  const periodMs = windowPeriodMs(dimension);
  if (reported.resetMs !== undefined) {
    const reading = resetReading(reported, provider, now);
    if (reading === undefined) return undefined;
    const anchor = state.resetAnchor;
    const evidence = anchor === undefined ? "unrelated" : compareResets(anchor, reading, reported.windowMs!, periodMs);
    // Evidence builds up with draws and time: keep the earlier reading until the pair tells.
    if (evidence !== "too-close") state.resetAnchor = reading;
    if (evidence === "bucket" && state.windowed) {
      state.windowed = false;
      return "revoked";
    }
    if (evidence === "window") state.windowed = true;
    // Stamped at the latest now: the boundary is at or before now + reset (+1 ms for rounding to the ms).
    return state.windowed ? { startedBy: now + reported.resetMs + 1 - periodMs, periodMs } : undefined;
  }
  if (isSubWindowAllowance(provider, reported)) state.windowed = true;
  if (moved === undefined) return undefined;
  const { limit, windowMs, capacity } = dimension;
  const refilled = state.windowed ? 0 : (moved.dt * limit) / windowMs;
  const unexplained = moved.providerGain - Math.max(0, moved.localGain) - refilled;
  if (unexplained <= capacity * JUMP_FRACTION) return undefined;
  state.windowed = true;
  // The jump happened since the last response: the window began at or before now.
  return { startedBy: now, periodMs };
}
