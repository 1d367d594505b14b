export { Limiter, type LimiterSnapshot } from "./limiter.js";
export type { Reservation } from "./core/reservation.js";
export { LimiterGroup } from "./group/group.js";
export type { GroupListener, GroupSnapshot, LimiterGroupOptions, SharedLimits } from "./group/options.js";
export {
  LimiterError,
  RequestTooLargeError,
  QueueFullError,
  WaitTimeoutError,
  LimiterClosedError,
  ReservationReleasedError,
  QuotaExceededError,
} from "./core/errors.js";
export type { Clock } from "./core/clock.js";
export type { AcquireOptions, LimiterOptions, RunOptions, RunResult, SyncOptions } from "./options.js";
export type { CustomLimit, Estimate, LimitChanges, Limits, Usage } from "./core/limits.js";
export type { DimensionSnapshot } from "./buckets/types.js";
export type { QuotaEvent, QuotaReport, Quotas } from "./core/quota-types.js";
export type { DimensionStats } from "./core/usage-stats.js";
export type {
  AdmittedEvent,
  CallEvent,
  DimensionSettlement,
  DriftEvent,
  EstimateCorrectedEvent,
  LimiterEventName,
  LimiterEvents,
  LimiterListener,
  PauseState,
  QueuedEvent,
  RateLimitedEvent,
  RejectedEvent,
  ResumedEvent,
  SettledEvent,
  SyncedEvent,
} from "./events/types.js";
export type { RetryOptions } from "./core/retry.js";
export { estimateRequest } from "./estimate/index.js";
export type { EstimateRequestOptions, RequestEstimate } from "./estimate/index.js";
export { PRIORITY_HEADER, TENANT_HEADER } from "./fetch/index.js";
export type { FetchOptions, FetchRequestInfo } from "./fetch/index.js";
