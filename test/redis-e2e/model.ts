/**
 * An independent token-bucket model to check recorded admissions against:
 * written here, not taken from the limiter, so a bug shared by both cannot hide.
 */

/** A bucket as configured: `limit` units per `windowMs`, holding at most `capacity`, full at the start. */
export interface BucketSpec {
  readonly limit: number;
  readonly windowMs: number;
  readonly capacity: number;
}

/** An admission at `at` ms after the start, with its cost per dimension. */
export interface Admission {
  readonly at: number;
  readonly costs: Readonly<Record<string, number>>;
}

/** Where the replay went below zero by more than the tolerance. */
export interface Overdraft {
  readonly dimension: string;
  readonly at: number;
  readonly level: number;
}

/**
 * Replays `admissions` in time order through buckets that start full at time 0
 * and returns the first overdraft, if any. `toleranceMs` of refill is allowed
 * on each dimension for timer and clock granularity.
 *
 * Timestamps are taken after the admission, which makes the replay lenient,
 * except for the first: a bucket that is full wastes its refill, so a late
 * first timestamp would shift the whole schedule. The first admission is
 * therefore replayed at time 0, the earliest the store could have made it.
 */
export function overdraft(
  admissions: readonly Admission[],
  specs: Readonly<Record<string, BucketSpec>>,
  toleranceMs = 5,
): Overdraft | undefined {
  const levels = new Map(Object.entries(specs).map(([name, spec]) => [name, spec.capacity]));
  let last = 0;
  for (const [i, { at, costs }] of [...admissions].sort((a, b) => a.at - b.at).entries()) {
    const now = i === 0 ? 0 : at;
    for (const [name, spec] of Object.entries(specs)) {
      const refilled = Math.min(spec.capacity, levels.get(name)! + ((now - last) * spec.limit) / spec.windowMs);
      const level = refilled - (costs[name] ?? 0);
      if (level < -(toleranceMs * spec.limit) / spec.windowMs) return { dimension: name, at, level };
      levels.set(name, level);
    }
    last = now;
  }
  return undefined;
}
