import type { RequestBudget } from "./jobs.js";

/** Timestamps come from several processes' clocks: an admission this early is not counted as rejected. */
const CLOCKS_MS = 1;

/** How admissions look to a provider metering the budget as a token bucket. */
export interface ProviderView {
  /** Admissions it would have rejected (more than `CLOCKS_MS` early). */
  readonly rejected: number;
  /** How early the earliest admission came, in ms of refill (0: none came early). */
  readonly earliestMs: number;
}

/**
 * Replays the admissions (ms after "go") through a bucket of `budget`, full
 * at "go" and holding `limit`, as if each reached the provider as it was
 * admitted. A rejected admission takes nothing.
 */
export function providerView(times: readonly number[], { limit, windowMs }: RequestBudget): ProviderView {
  const perMs = limit / windowMs;
  let level = limit;
  let last = 0;
  let rejected = 0;
  let earliestMs = 0;
  for (const at of [...times].sort((a, b) => a - b)) {
    level = Math.min(limit, level + (at - last) * perMs);
    last = at;
    earliestMs = Math.max(earliestMs, (1 - level) / perMs);
    if (level + CLOCKS_MS * perMs < 1) rejected++;
    else level -= 1;
  }
  return { rejected, earliestMs };
}
