/**
 * Admission tolerance in units of the dimension (requests or tokens). A client
 * that computes the exact refill time must never be rejected because of float
 * rounding on the server side.
 */
export const ADMISSION_TOLERANCE = 1e-6;

/**
 * How one rate-limited dimension keeps count on the simulated server. All times
 * are monotonic milliseconds from the provider's clock.
 */
export interface Meter {
  /** The allowance a full meter holds; also the `limit` the headers report. */
  readonly limit: number;
  /** Units available at `now`; negative while an under-estimate is being repaid. */
  level(now: number): number;
  /** Milliseconds until `cost` fits: 0 if it fits now, `Infinity` if it never can. */
  waitMs(cost: number, now: number): number;
  /**
   * Removes `amount` units without checking (admission checks `waitMs` first;
   * a charge at completion may go into debt). Returns the epoch the charge
   * belongs to, which `refund` needs.
   */
  take(amount: number, now: number): number;
  /** Gives back `amount` units of a charge made in `epoch`. */
  refund(amount: number, now: number, epoch: number): void;
  /** Milliseconds until the meter reports itself full again (the headers' reset). */
  resetMs(now: number): number;
}

/**
 * Whole units left, as headers report them: floored, with the admission
 * tolerance so 99.9999999 reads as 100. May be negative while in debt.
 */
export function wholeUnitsLeft(level: number): number {
  return Math.floor(level + ADMISSION_TOLERANCE);
}
