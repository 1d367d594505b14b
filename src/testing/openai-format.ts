import { answerPieces, answerText } from "./answers.js";
import type { Completion, SseEvent, StreamEvents } from "./completion.js";
import { MAX_STREAM_DELTAS } from "./completion.js";
import type { Rejection } from "./rejection.js";
import { rejectionMessage } from "./rejection.js";

/** Token counts in OpenAI's shape. */
export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A non-streaming `chat.completion` response body. */
export interface OpenAIChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: "assistant"; content: string; refusal: null };
    logprobs: null;
    finish_reason: "stop" | "length";
  }[];
  usage: OpenAIUsage;
}

/** OpenAI's error body (429: `type` is `"requests"` or `"tokens"`, `code` is `"rate_limit_exceeded"`). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The `chat.completion` body for a finished answer. */
export function chatCompletionBody(completion: Completion): OpenAIChatCompletion {
  return {
    id: chatCompletionId(completion),
    object: "chat.completion",
    created: createdSeconds(completion),
    model: completion.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: answerText(completion.outputTokens), refusal: null },
        logprobs: null,
        finish_reason: finishReason(completion),
      },
    ],
    usage: usageOf(completion),
  };
}

/**
 * `chat.completion.chunk` events: a role chunk, content deltas, a chunk with
 * the finish reason, a usage chunk (empty `choices`) when `includeUsage`
 * (`stream_options.include_usage`), then `[DONE]`.
 */
export function chatCompletionStream(completion: Completion, includeUsage: boolean): StreamEvents {
  const chunk = (choices: unknown[], usage?: OpenAIUsage): SseEvent => ({
    data: JSON.stringify({
      id: chatCompletionId(completion),
      object: "chat.completion.chunk",
      created: createdSeconds(completion),
      model: completion.model,
      choices,
      ...(usage ? { usage } : {}),
    }),
  });
  const choice = (delta: object, finish: string | null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });
  const tail = [chunk([choice({}, finishReason(completion))])];
  if (includeUsage) tail.push(chunk([], usageOf(completion)));
  tail.push({ data: "[DONE]" });
  return {
    head: [chunk([choice({ role: "assistant", content: "", refusal: null }, null)])],
    deltas: answerPieces(completion.outputTokens, MAX_STREAM_DELTAS).map((content) =>
      chunk([choice({ content }, null)]),
    ),
    tail,
  };
}

/** The 429 body: `{ error: { message, type: "tokens" | "requests", code: "rate_limit_exceeded", param: null } }`. */
export function openAIRateLimitBody(rejection: Rejection): OpenAIErrorBody {
  return {
    error: { message: rejectionMessage(rejection), type: rejection.unit, param: null, code: "rate_limit_exceeded" },
  };
}

/** A 4xx body for a request the simulator cannot serve. */
export function openAIInvalidRequestBody(message: string, code: string | null = null): OpenAIErrorBody {
  return { error: { message, type: "invalid_request_error", param: null, code } };
}

function chatCompletionId(completion: Completion): string {
  return `chatcmpl-${completion.id}`;
}

function createdSeconds(completion: Completion): number {
  return Math.floor(completion.createdAt / 1000);
}

function finishReason(completion: Completion): "stop" | "length" {
  return completion.truncated ? "length" : "stop";
}

function usageOf(completion: Completion): OpenAIUsage {
  return {
    prompt_tokens: completion.promptTokens,
    completion_tokens: completion.outputTokens,
    total_tokens: completion.promptTokens + completion.outputTokens,
  };
}
