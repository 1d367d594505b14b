/**
 * A request header that says the call was already admitted by another layer of llm-limiter
 * (the AI SDK middleware): a limited fetch that sees it strips it and passes the request through
 * without admitting or settling it, so a call under both is counted once. Any value.
 */
export const ADMITTED_HEADER = "x-llm-limiter-admitted";

/**
 * A request header naming the call's priority class (one of the limiter's `priorities`), for a
 * call made through an SDK whose options reach only its headers. `limiter.fetch()` and the AI SDK
 * middleware read it in place of their `priority` option and strip it before sending.
 */
export const PRIORITY_HEADER = "x-llm-limiter-priority";

/**
 * A request header naming whom the call is for (see `tenant` on `run`), read and stripped as
 * {@link PRIORITY_HEADER} is.
 */
export const TENANT_HEADER = "x-llm-limiter-tenant";
