import { costOf } from "./amounts.js";
import type { Estimate } from "./limits.js";
import { CHARGED, RESERVED, USED, type Meter } from "./meter.js";

/** What `Limiter.snapshot` adds to a dimension's levels: its use over the last window, and what waits for it. */
export interface DimensionStats {
  /**
   * The net cost charged on the dimension by the requests admitted over its last window (what they
   * reserved, less refunds, plus extra charges), divided by its limit: 1 is the whole budget.
   */
  readonly utilisation: number;
  /**
   * Of the tokens reserved by the requests admitted over the last window and released since, the
   * share they used (0..1, more if they ran over); left out on a request dimension, and before any was
   * released (every field present is a finite number). Below 0.5 for a whole window, `onWarning`
   * hears of it: `max_tokens` well above what answers use holds capacity back.
   */
  readonly efficiency?: number;
  /** Units the queued requests ask for on this dimension, in total. */
  readonly queued: number;
}

/** The queue as a snapshot reports it: each dimension's queued cost, and the longest wait so far. */
export interface QueueStats {
  readonly costs: ReadonlyMap<string, number>;
  readonly oldestWaitMs: number;
}

/** Walks the queue once: O(waiters × dimensions), on a snapshot only. */
export function queueStats(
  waiting: Iterable<{ readonly estimate: Estimate; readonly queuedAt: number }>,
  meters: readonly Meter[],
  now: number,
): QueueStats {
  const costs = new Map<string, number>(meters.map((meter) => [meter.name, 0]));
  let oldest = now;
  for (const { estimate, queuedAt } of waiting) {
    if (queuedAt < oldest) oldest = queuedAt;
    for (const meter of meters) costs.set(meter.name, costs.get(meter.name)! + costOf(meter.dimension.unit, estimate));
  }
  return { costs, oldestWaitMs: now - oldest };
}

/** `meter`'s use over its last window at monotonic `now` (zeros for a dimension no meter counts yet). */
export function dimensionStats(meter: Meter | undefined, queued: number, now: number): DimensionStats {
  if (!meter) return { utilisation: 0, queued };
  const { tally, dimension } = meter;
  const utilisation = Math.max(0, tally.sum(now, CHARGED)) / dimension.limit;
  const reserved = dimension.unit === "requests" ? 0 : tally.sum(now, RESERVED);
  return reserved > 0 ? { utilisation, efficiency: tally.sum(now, USED) / reserved, queued } : { utilisation, queued };
}
