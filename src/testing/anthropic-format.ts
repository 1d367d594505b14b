import { answerPieces, answerText } from "./answers.js";
import type { Completion, SseEvent, StreamEvents } from "./completion.js";
import { MAX_STREAM_DELTAS } from "./completion.js";
import type { Rejection } from "./rejection.js";
import { rejectionMessage } from "./rejection.js";

/**
 * Token counts in Anthropic's shape.
 * @inline
 */
export interface AnthropicUsage {
  /** Input (prompt) tokens the request used. */
  input_tokens: number;
  /** Output tokens generated. */
  output_tokens: number;
}

/**
 * A non-streaming Messages API response body.
 * @inline
 */
export interface AnthropicMessage {
  /** The message's unique id, `msg_…`. */
  id: string;
  /** The object type, always `"message"`. */
  type: "message";
  /** Who wrote the message: always `"assistant"`. */
  role: "assistant";
  /** The model that answered: here the request's `model`, echoed. */
  model: string;
  /** The content blocks the model generated; the simulator sends one text block. */
  content: {
    /** The block's type: `"text"`. */
    type: "text";
    /** The block's text. */
    text: string;
  }[];
  /** Why generation stopped: `"end_turn"` at a natural end, `"max_tokens"` at the `max_tokens` limit. */
  stop_reason: "end_turn" | "max_tokens";
  /** The custom stop sequence that ended generation, if one did; `null` here. */
  stop_sequence: null;
  /** Tokens the request used, as billed and rate-limited. */
  usage: AnthropicUsage;
}

/**
 * Anthropic's error body (429: `error.type` is `"rate_limit_error"`).
 * @inline
 */
export interface AnthropicErrorBody {
  /** The object type, always `"error"`. */
  type: "error";
  /** What went wrong. */
  error: {
    /** The error's type, e.g. `"rate_limit_error"`, `"invalid_request_error"`, `"not_found_error"`. */
    type: string;
    /** A human-readable description of the error. */
    message: string;
  };
}

/** The Messages API body for a finished answer. */
export function anthropicMessageBody(completion: Completion): AnthropicMessage {
  return {
    id: messageId(completion),
    type: "message",
    role: "assistant",
    model: completion.model,
    content: [{ type: "text", text: answerText(completion.outputTokens) }],
    stop_reason: stopReason(completion),
    stop_sequence: null,
    usage: { input_tokens: completion.promptTokens, output_tokens: completion.outputTokens },
  };
}

/**
 * Messages API stream: `message_start` (input usage), `content_block_start`,
 * `ping`, `content_block_delta`s, `content_block_stop`, `message_delta` (stop
 * reason and final output usage), `message_stop`.
 */
export function anthropicMessageStream(completion: Completion): StreamEvents {
  const event = (type: string, body: object = {}): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...body }),
  });
  const message = {
    id: messageId(completion),
    type: "message",
    role: "assistant",
    model: completion.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: completion.promptTokens, output_tokens: 0 },
  };
  return {
    head: [
      event("message_start", { message }),
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      event("ping"),
    ],
    deltas: answerPieces(completion.outputTokens, MAX_STREAM_DELTAS).map((text) =>
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
    ),
    tail: [
      event("content_block_stop", { index: 0 }),
      event("message_delta", {
        delta: { stop_reason: stopReason(completion), stop_sequence: null },
        usage: { output_tokens: completion.outputTokens },
      }),
      event("message_stop"),
    ],
  };
}

/** The 429 body: `{ type: "error", error: { type: "rate_limit_error", message } }`. */
export function anthropicRateLimitBody(rejection: Rejection): AnthropicErrorBody {
  return { type: "error", error: { type: "rate_limit_error", message: rejectionMessage(rejection) } };
}

/** A 4xx body (`invalid_request_error`, `not_found_error`) for a request the simulator cannot serve. */
export function anthropicErrorBody(type: string, message: string): AnthropicErrorBody {
  return { type: "error", error: { type, message } };
}

function messageId(completion: Completion): string {
  return `msg_${completion.id}`;
}

function stopReason(completion: Completion): "end_turn" | "max_tokens" {
  return completion.truncated ? "max_tokens" : "end_turn";
}
