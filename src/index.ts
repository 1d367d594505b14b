export { Limiter, type LimiterSnapshot } from "./limiter.js";
export { Reservation } from "./reservation.js";
export {
  LimiterError,
  RequestTooLargeError,
  QueueFullError,
  WaitTimeoutError,
  LimiterClosedError,
  ReservationReleasedError,
} from "./errors.js";
export type { Clock } from "./clock.js";
export type {
  AcquireOptions,
  CustomLimit,
  Estimate,
  LimitChanges,
  LimiterOptions,
  Limits,
  RunOptions,
  RunResult,
  Unit,
  Usage,
} from "./options.js";
export type { DimensionSnapshot } from "./store/types.js";
