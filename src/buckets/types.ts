import type { Dimension } from "../core/budget.js";
import type { Estimate } from "../core/limits.js";

/** Why a request does not fit now. */
export interface Blocker {
  /** The dimension that binds (`"concurrency"` when only a free slot is missing). */
  readonly dimension: string;
  /** Milliseconds until the buckets could hold it; `Infinity` when it waits for a release. */
  readonly waitMs: number;
}

/** A dimension's state as {@link Limiter.snapshot} reports it. */
export interface DimensionSnapshot {
  readonly limit: number;
  readonly windowMs: number;
  readonly capacity: number;
  /** Current level; negative while the dimension is in debt. */
  readonly available: number;
  /**
   * Present once the headers showed that the provider meters this dimension in
   * fixed windows: milliseconds until the current window ends and the level is
   * the whole capacity again.
   */
  readonly resetInMs?: number;
}

/**
 * Where bucket state lives. Every method that admits takes from all
 * dimensions and the concurrency slot together, or from none.
 */
export interface Store {
  /** Sets the dimensions (state of ones kept by name carries over) and the concurrency limit. */
  configure(dimensions: readonly Dimension[], concurrency: number | undefined): void;
  /**
   * Takes `estimate` from every dimension and one slot if all have room at monotonic time `now`; else takes nothing.
   */
  take(estimate: Estimate, now: number): boolean;
  /** What keeps `estimate` out now (call after `take` said no). */
  blocker(estimate: Estimate): Blocker;
  /**
   * Adds `amount` to dimension `name` (a refund; negative: an extra charge), capped at capacity. Unknown names are
   * ignored.
   * `chargedAt` is when the charge was made: a fixed window that has ended since forgets it.
   */
  give(name: string, amount: number, chargedAt: number): void;
  /** Current level of dimension `name` (refilled to now), if it exists. */
  level(name: string): number | undefined;
  /** Lowers dimension `name` to at most `level`; never raises it. */
  lower(name: string, level: number): void;
  /**
   * Sets dimension `name` to `level` as a fresher response reports it, but
   * never above this limiter's own count (so earlier corrections do not pile up).
   */
  resync(name: string, level: number): void;
  /** Refills dimension `name` at `share` (0..1] of its rate: other clients draw on the same key. */
  setShare(name: string, share: number): void;
  /**
   * The provider meters dimension `name` in fixed windows of `periodMs`, the
   * current one begun at or before monotonic time `startedBy`: nothing refills
   * until it ends, then the level is the whole capacity.
   */
  alignWindow(name: string, startedBy: number, periodMs: number): void;
  /** The headers showed dimension `name` to be a continuous bucket after all: it refills again, with no reset ahead. */
  endWindows(name: string): void;
  /** No admission with a positive cost on `name` before monotonic time `until`. */
  pause(name: string, until: number): void;
  /** Frees one concurrency slot (with a shared store, the reservation's lease). */
  releaseSlot(lease?: string): void;
  /** Slots in use. */
  slotsInUse(): number;
  /** The current level of every dimension. */
  snapshot(): Record<string, DimensionSnapshot>;
}
