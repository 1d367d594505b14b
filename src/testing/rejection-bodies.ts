import type { AnthropicErrorBody } from "./anthropic-format.js";
import type { BedrockErrorBody } from "./bedrock-format.js";
import { bedrockThrottlingBody } from "./bedrock-format.js";
import type { HeaderlessDialect, SimulatedDialect } from "./dialects.js";
import type { GeminiErrorBody } from "./gemini-format.js";
import { geminiRateLimitBody } from "./gemini-format.js";
import type { OpenAIErrorBody } from "./openai-format.js";
import type { OpenRouterErrorBody } from "./openrouter-format.js";
import { openRouterRateLimitBody } from "./openrouter-format.js";
import type { OverloadedErrorBody } from "./overloaded-format.js";
import { overloadedBody } from "./overloaded-format.js";
import type { Rejection } from "./rejection.js";

/**
 * The 429 body of each dialect that sends no rate-limit headers.
 * @inline
 */
export interface HeaderlessBodies {
  /** `RESOURCE_EXHAUSTED` with `QuotaFailure` and `RetryInfo`. */
  gemini: GeminiErrorBody;
  /** `ThrottlingException`'s message. */
  bedrock: BedrockErrorBody;
  /** OpenAI's shape, naming nothing. */
  bare: OpenAIErrorBody;
  /** The limit in `error.metadata.headers`. */
  openrouter: OpenRouterErrorBody;
  /** TGI's overloaded error. */
  "self-hosted": OverloadedErrorBody;
}

/**
 * The body of a 429 from a provider speaking `D`: OpenAI's or Anthropic's (by the API
 * called) for a `Dialect` that sends headers, the provider's own otherwise.
 */
export type RateLimitedBody<D extends SimulatedDialect = SimulatedDialect> = D extends HeaderlessDialect
  ? HeaderlessBodies[D]
  : OpenAIErrorBody | AnthropicErrorBody;

/** What a 429's body may say beside the rejection itself. */
export interface RejectionContext {
  /** The request's model, which Gemini's quota names. */
  readonly model: string;
  /** Epoch ms the 429 is sent, for OpenRouter's reset. */
  readonly wallNow: number;
}

/** A bare 429 names no limit: only its `retry-after` header hints when to come back. */
const BARE_BODY: OpenAIErrorBody = {
  error: { message: "Rate Limit Reached", type: "rate_limit_error", param: null, code: null },
};

/**
 * The 429 body: the dialect's own for a provider that sends no rate-limit headers,
 * else `apiShapeBody`, the body of the API shape called (OpenAI's or Anthropic's).
 */
export function rateLimitedBody(
  dialect: SimulatedDialect,
  rejection: Rejection,
  context: RejectionContext,
  apiShapeBody: (rejection: Rejection) => OpenAIErrorBody | AnthropicErrorBody,
): RateLimitedBody {
  switch (dialect) {
    case "gemini":
      return geminiRateLimitBody(rejection, context.model);
    case "bedrock":
      return bedrockThrottlingBody(rejection);
    case "openrouter":
      return openRouterRateLimitBody(rejection, context.wallNow);
    case "bare":
      return structuredClone(BARE_BODY);
    case "self-hosted":
      return overloadedBody();
    default:
      return apiShapeBody(rejection);
  }
}
