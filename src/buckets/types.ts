/** Why a request does not fit now. */
export interface Blocker {
  /** The dimension that binds (`"concurrency"` when only a free slot is missing). */
  readonly dimension: string;
  /** Milliseconds until the buckets could hold it; `Infinity` when it waits for a release. */
  readonly waitMs: number;
}

/** A dimension's state as {@link Limiter.snapshot} reports it. */
export interface DimensionSnapshot {
  /** Units that refill over `windowMs` (the configured limit, or a lower one the headers reported). */
  readonly limit: number;
  /** The window the limit is stated over, in milliseconds. */
  readonly windowMs: number;
  /** Largest level (burst size). */
  readonly capacity: number;
  /**
   * Current level: in `Limiter.snapshot`, the whole units a request could take
   * now (floored, never rounded up); negative while the dimension is in debt.
   */
  readonly available: number;
  /**
   * Present once the headers showed that the provider meters this dimension in
   * fixed windows: milliseconds until the current window ends and the level is
   * the whole capacity again.
   */
  readonly resetInMs?: number;
}
