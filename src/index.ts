export { Limiter, type HeldState, type LimiterSnapshot } from "./limiter.js";
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
  type LimiterErrorCode,
  type WaitContext,
} from "./core/errors.js";
export type { Clock } from "./core/clock.js";
export type { AcquireOptions, LimiterOptions, RunOptions, RunResult, SyncOptions } from "./options.js";
export type { CustomLimit, Estimate, LimitChanges, Limits, Unit, Usage } from "./core/limits.js";
export type { DimensionSnapshot } from "./buckets/types.js";
export type {
  Prices,
  QuotaEvent,
  QuotaPeriod,
  QuotaReport,
  QuotaState,
  QuotaUnit,
  Quotas,
} from "./core/quota-types.js";
export type { DimensionStats } from "./core/usage-stats.js";
export type {
  AdmittedEvent,
  CallEvent,
  DimensionSettlement,
  Disposer,
  DriftEvent,
  LimiterEventName,
  LimiterEvents,
  LimiterListener,
  PauseEnd,
  PauseState,
  QueuedEvent,
  RateLimitedEvent,
  RejectedEvent,
  RejectionReason,
  ResumedEvent,
  SettledEvent,
  SyncedEvent,
} from "./events/types.js";
export * from "./headers/index.js";
export { classifyFailure } from "./headers/failures.js";
export type { FailureClass, FailureKind, FailureParts } from "./headers/failures.js";
export type { QuotaWindow } from "./headers/quota-failure.js";
export type { RetryOptions } from "./core/retry.js";
export { plan } from "./plan/index.js";
export type { DimensionPlan, Plan, PlanInput } from "./plan/index.js";
export type {
  Booking,
  SharedDimension,
  SharedLayout,
  SharedReading,
  SharedStore,
  StoreFailurePolicy,
} from "./store/shared-store.js";
export type { GroupStore } from "./store/group-store.js";
export { estimateRequest } from "./estimate/index.js";
export type { Endpoint, EstimateRequestOptions, ImageSize, RequestEstimate, Tokenizer } from "./estimate/index.js";
export { ADMITTED_HEADER, PRIORITY_HEADER, TENANT_HEADER } from "./fetch/index.js";
export type { FetchOptions, FetchRequestInfo } from "./fetch/index.js";
