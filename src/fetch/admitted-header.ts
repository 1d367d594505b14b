/**
 * Request header set by the AI SDK middleware on calls it admitted: a wrapped `limiter.fetch()` below it lets them
 * pass uncounted, and strips it.
 */
export const ADMITTED_HEADER = "x-llm-limiter-admitted";
