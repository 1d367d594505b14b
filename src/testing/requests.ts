import type { MessageContent, PromptParts } from "./prompt.js";
import { estimatePromptTokens } from "./prompt.js";

/** The two request shapes the HTTP server accepts. */
export type ApiShape = "chat.completions" | "messages";

/** A chat request reduced to what the simulator needs. */
export interface ParsedChatRequest {
  readonly model: string;
  /** Estimated prompt tokens (see `estimatePromptTokens`). */
  readonly prompt: number;
  readonly maxTokens: number;
  readonly stream: boolean;
  /** OpenAI's `stream_options.include_usage`: end the stream with a usage chunk. */
  readonly includeUsage: boolean;
}

/** Either the parsed request or why it is invalid (a 400). */
export type ParseResult =
  { readonly ok: true; readonly request: ParsedChatRequest } | { readonly ok: false; readonly message: string };

/**
 * Reads an OpenAI `POST /v1/chat/completions` or Anthropic `POST /v1/messages`
 * body. The output cap is `max_completion_tokens`, else `max_tokens`, else
 * (OpenAI only; Anthropic requires it) `defaultMaxTokens`.
 */
export function parseChatRequest(shape: ApiShape, body: unknown, defaultMaxTokens: number): ParseResult {
  if (!isRecord(body)) return invalid("the request body must be a JSON object");
  if (typeof body.model !== "string") return invalid("model: a string is required");
  if (!Array.isArray(body.messages) || !body.messages.every(isMessage)) {
    return invalid("messages: an array of messages with string or content-part content is required");
  }
  const system = body.system;
  if (shape === "messages" && system !== undefined && !isContent(system)) {
    return invalid("system: a string or an array of text blocks is expected");
  }
  const requestedCap = shape === "messages" ? body.max_tokens : (body.max_completion_tokens ?? body.max_tokens);
  if (requestedCap === undefined && shape === "messages") return invalid("max_tokens: Field required");
  const maxTokens = requestedCap ?? defaultMaxTokens;
  if (typeof maxTokens !== "number" || !Number.isSafeInteger(maxTokens) || maxTokens < 1) {
    return invalid("max_tokens: a positive integer is required");
  }
  const parts: PromptParts = {
    messages: body.messages,
    ...(shape === "messages" && isContent(system) ? { system } : {}),
  };
  const streamOptions = body.stream_options;
  return {
    ok: true,
    request: {
      model: body.model,
      prompt: estimatePromptTokens(parts),
      maxTokens,
      stream: body.stream === true,
      includeUsage: shape === "chat.completions" && isRecord(streamOptions) && streamOptions.include_usage === true,
    },
  };
}

function invalid(message: string): ParseResult {
  return { ok: false, message };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isMessage(value: unknown): value is { content?: MessageContent | null } {
  return isRecord(value) && (value.content === undefined || value.content === null || isContent(value.content));
}

function isContent(value: unknown): value is MessageContent {
  if (typeof value === "string") return true;
  const isPart = (part: unknown): boolean =>
    isRecord(part) && typeof part.type === "string" && (part.text === undefined || typeof part.text === "string");
  return Array.isArray(value) && value.every(isPart);
}
