/**
 * `llm-limiter/testing`: a simulated LLM provider that meters calls the way
 * real ones do (token buckets or fixed windows per dimension, estimate then
 * reconcile, concurrency), in process or over HTTP for the official SDKs.
 * Its accounting is written independently of the limiter's, on purpose.
 */
export { createProvider } from "./provider.js";
export type { CallRequest, CallResult, SimulatedProvider } from "./provider.js";
export type { ProviderOptions } from "./options.js";
export type { CallRecord, ProviderStats } from "./engine.js";
export type { ProviderServer } from "./http.js";
export type { Dialect, SimulatedDialect } from "./dialects.js";
export type { RateLimitedBody } from "./rejection-bodies.js";
export { between, seededRandom } from "./random.js";
