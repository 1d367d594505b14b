import {
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  isRecord,
  jsonTokens,
  outputReservation,
  stringTokens,
} from "./count.js";
import { openAIImageTokens, sizeOfImageUrl } from "./images.js";
import type { Counting, RequestEstimate } from "./types.js";

type Body = Record<string, unknown>;

/** `POST /v1/chat/completions`, OpenAI's and the compatible APIs'. */
export function chatCompletionsEstimate(body: Body, counting: Counting): RequestEstimate {
  let input = REPLY_PRIMING_TOKENS;
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) {
      if (!isRecord(message)) continue;
      input += TOKENS_PER_MESSAGE + stringTokens(counting, message.role);
      if (typeof message.name === "string") input += 1 + stringTokens(counting, message.name);
      input += contentTokens(body.model, message.content, counting);
      if (Array.isArray(message.tool_calls)) input += jsonTokens(counting, message.tool_calls);
      if (isRecord(message.function_call)) input += jsonTokens(counting, message.function_call);
    }
  }
  input += jsonTokens(counting, body.tools) + jsonTokens(counting, body.functions);
  input += schemaTokens(counting, body.response_format);
  return { input, output: outputReservation(counting, body.max_completion_tokens ?? body.max_tokens, body.n) };
}

/**
 * Tokens the Responses API bills beyond the chat format's count of the same messages: 18 in both
 * examples of OpenAI's API reference that print a request and its `usage` (gpt-4.1, 36 input tokens;
 * gpt-4o, 37), recorded in test/fixtures/estimate/recorded-usage.json.
 */
const RESPONSES_OVERHEAD_TOKENS = 18;

/**
 * `POST /v1/responses`: `instructions` (a developer message), `input` (a string, a user message, or
 * items), tools, `max_output_tokens`.
 */
export function responsesEstimate(body: Body, counting: Counting): RequestEstimate {
  let input = REPLY_PRIMING_TOKENS + RESPONSES_OVERHEAD_TOKENS;
  if (typeof body.instructions === "string" && body.instructions !== "") {
    input += TOKENS_PER_MESSAGE + stringTokens(counting, "developer") + stringTokens(counting, body.instructions);
  }
  if (typeof body.input === "string") {
    input += TOKENS_PER_MESSAGE + stringTokens(counting, "user") + stringTokens(counting, body.input);
  } else if (Array.isArray(body.input)) {
    for (const item of body.input) {
      if (!isRecord(item)) continue;
      input += TOKENS_PER_MESSAGE + stringTokens(counting, item.role);
      // A message's content; tool calls and their outputs are counted as JSON text.
      input +=
        item.content !== undefined ? contentTokens(body.model, item.content, counting) : itemTokens(item, counting);
    }
  }
  input += jsonTokens(counting, body.tools);
  if (isRecord(body.text)) input += schemaTokens(counting, body.text.format);
  return { input, output: outputReservation(counting, body.max_output_tokens) };
}

/** `POST /v1/embeddings`: the input's tokens (strings, or arrays of token ids), no output. */
export function embeddingsEstimate(body: Body, counting: Counting): RequestEstimate {
  const inputs: unknown[] = Array.isArray(body.input) && !isTokenIds(body.input) ? body.input : [body.input];
  let input = 0;
  for (const one of inputs) input += isTokenIds(one) ? one.length : stringTokens(counting, one);
  return { input, output: 0 };
}

/** A message's content: a string, or parts (text, images by the tile rule, anything else as JSON text). */
function contentTokens(model: unknown, content: unknown, counting: Counting): number {
  if (!Array.isArray(content)) return typeof content === "string" ? stringTokens(counting, content) : 0;
  let tokens = 0;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (typeof part.text === "string") tokens += stringTokens(counting, part.text);
    else if (part.type === "image_url" || part.type === "input_image") tokens += imageTokens(model, part, counting);
    else tokens += itemTokens(part, counting);
  }
  return tokens;
}

/** Chat's `{ image_url: { url, detail } }`, or the Responses API's `{ image_url: url, detail }`. */
function imageTokens(model: unknown, part: Record<string, unknown>, counting: Counting): number {
  const image = isRecord(part.image_url) ? part.image_url : part;
  const url = isRecord(part.image_url) ? part.image_url.url : part.image_url;
  return openAIImageTokens(model, image.detail, sizeOfImageUrl(url, counting.imageSize));
}

/** An item or part without text of its own: its fields as JSON text, its type tag left out. */
function itemTokens(item: Record<string, unknown>, counting: Counting): number {
  const { type: _type, ...rest } = item;
  return jsonTokens(counting, rest);
}

/** A structured-output schema, which the provider adds to the prompt. */
function schemaTokens(counting: Counting, format: unknown): number {
  if (!isRecord(format)) return 0;
  return jsonTokens(counting, format.json_schema ?? format.schema);
}

function isTokenIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === "number");
}
