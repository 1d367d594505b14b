/**
 * Metric and attribute names. Token usage follows the OpenTelemetry GenAI semantic conventions
 * v1.37.0 (`gen_ai.client.token.usage`, `gen_ai.token.type`, `gen_ai.request.model`); they define
 * nothing for rate limits, so the rest lives under one namespace, `llm_limiter.`.
 */

/** GenAI semconv v1.37.0: input and output tokens per call, a histogram with these bucket boundaries. */
export const TOKEN_USAGE = "gen_ai.client.token.usage";
/** The boundaries GenAI semconv v1.37.0 advises for `gen_ai.client.token.usage`. */
export const TOKEN_USAGE_BUCKETS = [
  1, 4, 16, 64, 256, 1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864,
];
/** GenAI semconv: `input` or `output`. */
export const TOKEN_TYPE = "gen_ai.token.type";
/** GenAI semconv: the model asked for. */
export const REQUEST_MODEL = "gen_ai.request.model";
/** General semconv: why an operation failed. */
export const ERROR_TYPE = "error.type";

/** A budget's name (`rpm`, `tpm`, ...). */
export const DIMENSION = "llm_limiter.dimension";
/** A call's priority class (`interactive`, `default`, ...), on the measurements of calls. */
export const PRIORITY = "llm_limiter.priority";
/** A 429's class: `rate` or `billing`. */
export const FAILURE_KIND = "llm_limiter.failure.kind";

export const AVAILABLE = "llm_limiter.capacity.available";
export const LIMIT = "llm_limiter.capacity.limit";
export const UTILIZATION = "llm_limiter.utilization";
export const EFFICIENCY = "llm_limiter.reservation.efficiency";
export const QUEUE_DEPTH = "llm_limiter.queue.depth";
export const OLDEST_WAIT = "llm_limiter.queue.oldest_wait";
export const IN_FLIGHT = "llm_limiter.requests.in_flight";
export const ADMITTED = "llm_limiter.requests.admitted";
export const REJECTED = "llm_limiter.requests.rejected";
export const RATE_LIMITED = "llm_limiter.rate_limited";
export const DRIFT = "llm_limiter.drift";
export const TOKENS_RESERVED = "llm_limiter.tokens.reserved";
export const TOKENS_USED = "llm_limiter.tokens.used";
export const ADMISSION_WAIT = "llm_limiter.admission.wait";
/** Seconds: from admitted at once to the longest waits a daily budget can cause. */
export const WAIT_BUCKETS = [0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3_600];
