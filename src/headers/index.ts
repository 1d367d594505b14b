/**
 * `llm-limiter/headers`: the header parser on its own. Any provider's rate-limit headers read into one
 * view, and a failure (a 429, a 503, an SDK's error) classified, with no limiter involved.
 */
export { parseRateLimitHeaders } from "./parse.js";
export { classifyFailure } from "./failures.js";
export type { FailureClass, FailureKind, FailureParts } from "./failures.js";
export type { HeaderInput, ParseOptions, ProviderName, RateLimitView, ReportedDimension } from "./types.js";
