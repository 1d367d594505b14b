/**
 * How much of a reported usage a settle believes. The usage comes from the provider's
 * response (or an SDK's usage field, or a proxy in between): a `1e300` taken as debt would
 * lock a budget for good, so one call's usage is bounded by what the call could plausibly
 * have used.
 */

/** A usage more than this many times the call's estimate on a dimension (and more than a full bucket) is capped. */
export const USAGE_OVER_ESTIMATE = 16;

/** The default `maxUsage`: ten million tokens, the largest context window offered (Llama 4 Scout's). */
export const DEFAULT_MAX_USAGE = 10_000_000;

/**
 * The most a settle charges on a dimension for a call that was admitted on `estimated` there:
 * the larger of {@link USAGE_OVER_ESTIMATE} times the estimate and the dimension's `capacity`
 * (so that an estimate of 0 still charges up to a full bucket), never above `maxUsage`; whole units.
 */
export function usageCap(estimated: number, capacity: number, maxUsage: number): number {
  return Math.ceil(Math.min(maxUsage, Math.max(USAGE_OVER_ESTIMATE * estimated, capacity)));
}
