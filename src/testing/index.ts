/**
 * `llm-limiter/testing`: a simulated LLM provider that meters calls the way
 * real ones do (token buckets or fixed windows per dimension, estimate then
 * reconcile, concurrency), in process or over HTTP for the official SDKs.
 * Its accounting is written independently of the limiter's, on purpose.
 */
export { createProvider } from "./provider.js";
export type { CallRequest, CallResult, CallUsage, SimulatedProvider } from "./provider.js";
export type { AnswerInput, ArrivalInput, HeaderStamp, LatencyInput, ProviderOptions } from "./options.js";
export type { CallRecord, ProviderStats, ResponseHeaders } from "./engine.js";
export type { ListenOptions, ProviderServer } from "./http.js";
export type { Dialect, HeaderlessDialect, SimulatedDialect } from "./dialects.js";
export type { DimensionName, OutputCharge, RejectionDimension, WindowMode } from "./dimensions.js";
export type { AnthropicErrorBody, AnthropicMessage, AnthropicUsage } from "./anthropic-format.js";
export type { OpenAIChatCompletion, OpenAIErrorBody, OpenAIUsage } from "./openai-format.js";
export type { BedrockErrorBody } from "./bedrock-format.js";
export type {
  GeminiErrorBody,
  GeminiErrorDetail,
  GeminiHelp,
  GeminiQuotaFailure,
  GeminiQuotaViolation,
  GeminiRetryInfo,
} from "./gemini-format.js";
export type { OpenRouterErrorBody } from "./openrouter-format.js";
export type { OverloadedErrorBody } from "./overloaded-format.js";
export type { HeaderlessBodies, RateLimitedBody } from "./rejection-bodies.js";
export type { OpenAIResponse, OpenAIResponseMessage, OpenAIResponseUsage } from "./responses-format.js";
export type { OpenAIEmbeddingList, OpenAIEmbeddingsUsage } from "./embeddings-format.js";
export { estimatePromptTokens } from "./prompt.js";
export type { MessageContent, PromptParts } from "./prompt.js";
export { formatGoDuration } from "./go-duration.js";
export { between, seededRandom } from "./random.js";
export { parseWorkload, renderReport, simulate } from "../simulate/index.js";
export type {
  LatencyCall,
  ReportOptions,
  SimulateBudget,
  SimulateOptions,
  SimulateProgress,
  SimulationOutcome,
  SimulationResult,
  SimulationRun,
  SimulationSample,
  SimulationSummary,
  WorkloadCall,
} from "../simulate/index.js";
