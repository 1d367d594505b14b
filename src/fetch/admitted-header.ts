/**
 * A request header that says the call was already admitted by another layer of llm-limiter
 * (the AI SDK middleware): a limited fetch that sees it strips it and passes the request through
 * without admitting or settling it, so a call under both is counted once. Any value.
 */
export const ADMITTED_HEADER = "x-llm-limiter-admitted";
