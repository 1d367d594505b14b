import type { MessageContent, PromptParts } from "./prompt.js";
import { estimatePromptTokens } from "./prompt.js";

/** The request shapes the HTTP server accepts. */
export type ApiShape = "chat.completions" | "messages" | "responses" | "embeddings";

/** What an embeddings request asks for beyond its size. */
export interface EmbeddingsAsked {
  /** How many inputs to embed: one vector each. */
  readonly inputs: number;
  /** The length of each vector: `dimensions`, else {@link DEFAULT_EMBEDDING_DIMENSIONS}. */
  readonly dimensions: number;
  /** `encoding_format: "base64"`: each vector as base64 of little-endian float32s, else a number array. */
  readonly base64: boolean;
}

/** A request reduced to what the simulator needs. */
export interface ParsedRequest {
  readonly model: string;
  /** Estimated prompt tokens (see `estimatePromptTokens`; an embedding's inputs count without message overhead). */
  readonly prompt: number;
  /** The output cap; 0 for embeddings, which generate no tokens. */
  readonly maxTokens: number;
  /** The answer's length when the request decides it: 0 for embeddings. */
  readonly actual?: number;
  readonly stream: boolean;
  /** OpenAI's `stream_options.include_usage`: end the stream with a usage chunk. */
  readonly includeUsage: boolean;
  /** Set for an embeddings request. */
  readonly embeddings?: EmbeddingsAsked;
}

/** Either the parsed request or why it is invalid (a 400). */
export type ParseResult =
  { readonly ok: true; readonly request: ParsedRequest } | { readonly ok: false; readonly message: string };

/** Vector length when an embeddings request names no `dimensions` (text-embedding-3-small's). */
export const DEFAULT_EMBEDDING_DIMENSIONS = 1536;

/** Reads a request body of the given shape. */
export function parseRequest(shape: ApiShape, body: unknown, defaultMaxTokens: number): ParseResult {
  if (!isRecord(body)) return invalid("the request body must be a JSON object");
  const model = body.model;
  if (typeof model !== "string") return invalid("model: a string is required");
  if (shape === "responses") return parseResponsesRequest(body, model, defaultMaxTokens);
  if (shape === "embeddings") return parseEmbeddingsRequest(body, model);
  return parseChatRequest(shape, body, model, defaultMaxTokens);
}

/**
 * Reads an OpenAI `POST /v1/chat/completions` or Anthropic `POST /v1/messages`
 * body. The output cap is `max_completion_tokens`, else `max_tokens`, else
 * (OpenAI only; Anthropic requires it) `defaultMaxTokens`.
 */
function parseChatRequest(shape: ApiShape, body: Body, model: string, defaultMaxTokens: number): ParseResult {
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
  if (!isPositiveInteger(maxTokens)) return invalid("max_tokens: a positive integer is required");
  const parts: PromptParts = {
    messages: body.messages,
    ...(shape === "messages" && isContent(system) ? { system } : {}),
  };
  const streamOptions = body.stream_options;
  return {
    ok: true,
    request: {
      model,
      prompt: estimatePromptTokens(parts),
      maxTokens,
      stream: body.stream === true,
      includeUsage: shape === "chat.completions" && isRecord(streamOptions) && streamOptions.include_usage === true,
    },
  };
}

/**
 * Reads an OpenAI `POST /v1/responses` body: `input` (a string, or items whose text parts count as
 * messages'), `instructions` as a system prompt, the output cap `max_output_tokens`, else `defaultMaxTokens`.
 */
function parseResponsesRequest(body: Body, model: string, defaultMaxTokens: number): ParseResult {
  const { input, instructions } = body;
  const items = typeof input === "string" ? [{ content: input }] : input;
  if (!Array.isArray(items) || !items.every(isItem)) {
    return invalid("input: a string or an array of input items is required");
  }
  if (instructions !== undefined && instructions !== null && typeof instructions !== "string") {
    return invalid("instructions: a string is expected");
  }
  const maxTokens = body.max_output_tokens ?? defaultMaxTokens;
  if (!isPositiveInteger(maxTokens)) return invalid("max_output_tokens: a positive integer is required");
  const messages = items.map((item) => ({ content: isContent(item.content) ? item.content : "" }));
  return {
    ok: true,
    request: {
      model,
      prompt: estimatePromptTokens({ messages, ...(typeof instructions === "string" ? { system: instructions } : {}) }),
      maxTokens,
      stream: body.stream === true,
      includeUsage: false,
    },
  };
}

/**
 * Reads an OpenAI `POST /v1/embeddings` body: `input` is a string, an array of strings, an array of
 * token ids or an array of such arrays; each string counts `ceil(chars / 4)` tokens, each token id one.
 */
function parseEmbeddingsRequest(body: Body, model: string): ParseResult {
  const { input, dimensions, encoding_format: encoding } = body;
  const inputs = typeof input === "string" || isTokenIds(input) ? [input] : input;
  if (
    !Array.isArray(inputs) ||
    inputs.length === 0 ||
    !inputs.every((one) => typeof one === "string" || isTokenIds(one))
  ) {
    return invalid("input: a string, an array of strings or an array of token arrays is required");
  }
  if (dimensions !== undefined && !isPositiveInteger(dimensions)) {
    return invalid("dimensions: a positive integer is expected");
  }
  if (encoding !== undefined && encoding !== "float" && encoding !== "base64") {
    return invalid("encoding_format: 'float' or 'base64' is expected");
  }
  const prompt = inputs.reduce<number>(
    (sum, one) => sum + (typeof one === "string" ? Math.ceil(one.length / 4) : one.length),
    0,
  );
  return {
    ok: true,
    request: {
      model,
      prompt,
      maxTokens: 0,
      actual: 0,
      stream: false,
      includeUsage: false,
      embeddings: {
        inputs: inputs.length,
        dimensions: dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS,
        base64: encoding === "base64",
      },
    },
  };
}

function invalid(message: string): ParseResult {
  return { ok: false, message };
}

type Body = Record<string, unknown>;

function isRecord(value: unknown): value is Body {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isMessage(value: unknown): value is { content?: MessageContent | null } {
  return isRecord(value) && (value.content === undefined || value.content === null || isContent(value.content));
}

/** A Responses input item: a message (string or parts), or another item (a tool call, its output): no text. */
function isItem(value: unknown): value is { content?: unknown } {
  return isRecord(value) && (value.content === undefined || isContent(value.content));
}

function isTokenIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((n) => Number.isSafeInteger(n));
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

function isContent(value: unknown): value is MessageContent {
  if (typeof value === "string") return true;
  const isPart = (part: unknown): boolean =>
    isRecord(part) && typeof part.type === "string" && (part.text === undefined || typeof part.text === "string");
  return Array.isArray(value) && value.every(isPart);
}
