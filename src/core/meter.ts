import type { Dimension } from "./budget.js";
import { WindowTally } from "./window-tally.js";

/** Admission's tallies of one dimension, kept by name across reconfiguration. */
export interface Meter {
  readonly name: string;
  /** The dimension as it is configured now. */
  dimension: Dimension;
  /**
   * Per priority class (by rank), cost of the queued waiters that cannot time
   * out (the wait prediction's lower bound).
   */
  queued: number[];
  /** Charges held by unreleased reservations: what settles could still refund. */
  held: number;
  /**
   * Net drawn since the meter was created: charged at admission, less refunds,
   * plus extra charges. Marks of it tell what a response could not have counted.
   */
  admitted: number;
  /** The dimension was removed or replaced: reservations charged on it settle nowhere. */
  retired: boolean;
  /** The last window's charges and settlements (columns `CHARGED`, `RESERVED`, `USED`), for `snapshot()`. */
  tally: WindowTally;
}

/** Tally column: net charge (admission, refunds, extra charges), dated at admission. */
export const CHARGED = 0;
/** Tally column: what released calls reserved at admission, dated at admission. */
export const RESERVED = 1;
/** Tally column: what released calls finally cost, dated at admission. */
export const USED = 2;

/** A tally for `dimension`'s window. */
export function tallyFor(dimension: Dimension): WindowTally {
  return new WindowTally(dimension.windowMs, 3);
}

/** A new meter for `dimension`. */
export function createMeter(dimension: Dimension): Meter {
  return {
    name: dimension.name,
    dimension,
    queued: [],
    held: 0,
    admitted: 0,
    retired: false,
    tally: tallyFor(dimension),
  };
}
