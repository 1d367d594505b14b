/**
 * Pure token-bucket arithmetic: a level that refills continuously at
 * `limit / windowMs` up to `capacity`, and may go below zero (debt) only when a
 * settled call used more than it reserved. No timers, no I/O, no clock reads.
 *
 * Rates are applied as `elapsed * limit / windowMs` (multiply first) so whole
 * numbers stay exact: 600 ms at 100/min refills exactly 1.
 */

/** The fixed shape of one bucket. */
export interface BucketShape {
  /** Units added per `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
  /** Largest level the bucket holds (its burst). */
  readonly capacity: number;
}

/** Mutable state of one bucket: its level as of time `at`. */
export interface BucketState {
  level: number;
  at: number;
}

/**
 * Float slack when comparing a level with a cost: refill arithmetic on
 * fractional clocks can land a hair under a whole number that is, in exact
 * arithmetic, reached.
 */
const SLACK = 1e-9;

/**
 * The level at `now`, without changing the state. A clock that steps back
 * refills nothing. `cap` is the most it may hold (default the capacity).
 */
export function levelAt(shape: BucketShape, state: BucketState, now: number, cap = shape.capacity): number {
  const elapsed = now - state.at;
  const level = elapsed > 0 ? state.level + (elapsed * shape.limit) / shape.windowMs : state.level;
  return level < cap ? level : cap;
}

/** Brings the state up to `now` (refill, up to `cap`), so later takes and gives start from a current level. */
export function advance(shape: BucketShape, state: BucketState, now: number, cap = shape.capacity): void {
  state.level = levelAt(shape, state, now, cap);
  if (now > state.at) state.at = now;
}

/** Whether a level covers a cost. */
export function covers(level: number, cost: number): boolean {
  return level + SLACK * (cost > 1 ? cost : 1) >= cost;
}

/**
 * The whole units a level holds, never rounded up: the most a cost can be and
 * still be covered (so a level a hair under 100 after float drift, which
 * covers 100, reports 100).
 */
export function wholeUnits(level: number): number {
  return Math.floor(level + SLACK * (level > 1 ? level : 1));
}

/** Milliseconds from `now` until the level covers `cost` (0 if it already does). */
export function msUntilCovered(shape: BucketShape, state: BucketState, now: number, cost: number): number {
  const level = levelAt(shape, state, now);
  if (covers(level, cost)) return 0;
  return ((cost - level) * shape.windowMs) / shape.limit;
}
