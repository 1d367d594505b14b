import { answerPieces, answerText } from "./answers.js";
import type { Completion, SseEvent, StreamEvents } from "./completion.js";
import { MAX_STREAM_DELTAS } from "./completion.js";
import type { Rejection } from "./rejection.js";
import { rejectionMessage } from "./rejection.js";

/**
 * Token counts in OpenAI's shape.
 * @inline
 */
export interface OpenAIUsage {
  /** Tokens in the prompt. */
  prompt_tokens: number;
  /** Tokens in the generated answer. */
  completion_tokens: number;
  /** Tokens used in all: `prompt_tokens + completion_tokens`. */
  total_tokens: number;
}

/**
 * A non-streaming `chat.completion` response body.
 * @inline
 */
export interface OpenAIChatCompletion {
  /** The completion's unique id, `chatcmpl-…`. */
  id: string;
  /** The object type, always `"chat.completion"`. */
  object: "chat.completion";
  /** When the completion was created, in Unix seconds. */
  created: number;
  /** The model that answered: here the request's `model`, echoed. */
  model: string;
  /** The answers generated, one per requested choice; the simulator always sends one. */
  choices: {
    /** The choice's position in `choices`, from 0. */
    index: number;
    /** The message the model generated. */
    message: {
      /** Who wrote the message: always `"assistant"`. */
      role: "assistant";
      /** The message's text. */
      content: string;
      /** The model's refusal message when it refused, else `null` (the simulator never refuses). */
      refusal: null;
    };
    /** Log probabilities of the tokens, when requested; `null` here. */
    logprobs: null;
    /** Why generation stopped: `"stop"` at a natural end, `"length"` at the `max_tokens` limit. */
    finish_reason: "stop" | "length";
  }[];
  /** Tokens the request used. */
  usage: OpenAIUsage;
}

/**
 * OpenAI's error body (429: `type` is `"requests"` or `"tokens"`, `code` is `"rate_limit_exceeded"`).
 * @inline
 */
export interface OpenAIErrorBody {
  /** What went wrong. */
  error: {
    /** A human-readable description of the error. */
    message: string;
    /** The error's category, e.g. `"invalid_request_error"`; on a 429, the budget hit: `"requests"` or `"tokens"`. */
    type: string;
    /** The request parameter the error concerns, or `null`. */
    param: string | null;
    /** A machine-readable error code, e.g. `"rate_limit_exceeded"`, or `null`. */
    code: string | null;
  };
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
