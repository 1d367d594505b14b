import { LimiterError, type LimiterErrorCode } from "../core/errors.js";
import type { Estimate } from "../core/limits.js";
import type { RejectedEvent, RejectionReason } from "./types.js";

const REASONS: Partial<Record<LimiterErrorCode, RejectionReason>> = {
  QUEUE_FULL: "queue_full",
  WAIT_TIMEOUT: "timeout",
  LIMITER_CLOSED: "closed",
  REQUEST_TOO_LARGE: "too_large",
  STORE_UNAVAILABLE: "store",
  STORE_REPLY: "store",
  QUOTA_EXCEEDED: "quota",
};

/**
 * The `rejected` payload of a call of class `priority` and `tenant`: the reason read from the error's code;
 * anything not the limiter's is a signal's reason.
 */
export function rejection(
  estimate: Estimate,
  error: unknown,
  waitMs: number,
  priority: string,
  tenant: string | undefined,
): RejectedEvent {
  const reason = error instanceof LimiterError ? (REASONS[error.code] ?? "store") : "aborted";
  return { estimate, priority, tenant, reason, error, waitMs };
}
