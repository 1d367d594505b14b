import type { DimensionUnit, RejectionDimension } from "./dimensions.js";
import { formatGoDuration } from "./go-duration.js";

/** Why a call got a 429: the binding dimension and the numbers a provider would quote. */
export interface Rejection {
  /** The dimension that binds longest (`"concurrency"` for the in-flight cap). */
  readonly dimension: RejectionDimension;
  /** Requests or tokens: OpenAI's `error.type`. */
  readonly unit: DimensionUnit;
  readonly limit: number;
  /** Units in use when the call arrived (whole units; may exceed `limit` while in debt). */
  readonly used: number;
  /** Units the call asked for on that dimension. */
  readonly requested: number;
  /**
   * Milliseconds until every dimension has room for this call, or `undefined`
   * when it can never fit (it asks for more than the dimension holds).
   */
  readonly retryAfterMs: number | undefined;
}

const LABELS: Readonly<Record<RejectionDimension, string>> = {
  rpm: "requests per min (RPM)",
  rpd: "requests per day (RPD)",
  tpm: "tokens per min (TPM)",
  tpd: "tokens per day (TPD)",
  itpm: "input tokens per min (ITPM)",
  otpm: "output tokens per min (OTPM)",
  concurrency: "concurrent requests",
};

/**
 * The 429 message, worded as OpenAI words it:
 * `Rate limit reached on tokens per min (TPM): Limit 10000, Used 9298, Requested 1161. Please try again in 2.754s.`
 */
export function rejectionMessage(rejection: Rejection): string {
  const label = LABELS[rejection.dimension];
  if (rejection.retryAfterMs === undefined) {
    return (
      `Request too large on ${label}: Limit ${rejection.limit}, Requested ${rejection.requested}. ` +
      "The input or output tokens must be reduced in order to run successfully."
    );
  }
  return (
    `Rate limit reached on ${label}: Limit ${rejection.limit}, Used ${rejection.used}, ` +
    `Requested ${rejection.requested}. Please try again in ${formatGoDuration(rejection.retryAfterMs)}.`
  );
}
