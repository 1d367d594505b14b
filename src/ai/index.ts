/**
 * `llm-limiter/ai`: the Vercel AI SDK's middleware, for `wrapLanguageModel({ model, middleware })` of `ai`
 * (version 6, the `LanguageModelV3Middleware` shape), with any AI SDK provider.
 */
export { rateLimitMiddleware } from "./middleware.js";
export type { RateLimitMiddlewareOptions } from "./options.js";
export type { ModelCallParams, WrappedModel } from "./types.js";
