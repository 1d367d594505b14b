export { Limiter, type LimiterSnapshot } from "./limiter.js";
export { Reservation } from "./reservation.js";
export {
  LimiterError,
  RequestTooLargeError,
  QueueFullError,
  WaitTimeoutError,
  LimiterClosedError,
  ReservationReleasedError,
  type WaitContext,
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
  SyncOptions,
  Unit,
  Usage,
} from "./options.js";
export type { DimensionSnapshot } from "./store/types.js";
export * from "./headers/index.js";
export { classifyFailure } from "./retry-hints.js";
export type { FailureClass, FailureKind, FailureParts } from "./retry-hints.js";
export type { RetryOptions } from "./retry.js";
export { plan } from "./plan/index.js";
export type { DimensionPlan, Plan, PlanInput } from "./plan/index.js";
