import type { EstimateRatios } from "../core/estimate-ratios.js";
import type { Estimate } from "../core/limits.js";
import type { Reservation } from "../core/reservation.js";
import type { AcquireOptions } from "../options.js";

/** What a limited fetch admits through: a `Limiter`, or the member of a group a request's model picks. */
export interface Admitter {
  acquire(estimate: Estimate, options?: AcquireOptions): Promise<Reservation>;
  /** What it learned of the provider's prompt counts: the library's own estimates are corrected by it. */
  readonly ratios?: EstimateRatios;
}

/**
 * Picks who admits a request by its model (the body's `model`, Azure's deployment; `undefined` when it names
 * none). Returning `undefined` sends the request unadmitted: a group has no budget for a request of no model.
 */
export type PickAdmitter = (model: string | undefined) => Admitter | undefined;

/** What the limiter (or group) behind a fetch tells it when the fetch is made. */
export interface FetchHost {
  /** Throws a `TypeError` for a `priority` that is not one of its classes. */
  checkPriority(priority: string): void;
  /** Its `onWarning`. */
  warn(warning: Error): void;
}
