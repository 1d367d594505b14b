import {
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  isRecord,
  jsonTokens,
  outputReservation,
  stringTokens,
} from "./count.js";
import { imageSizeOfBase64 } from "./image-size.js";
import { anthropicImageTokens, sizeOfImageUrl } from "./images.js";
import type { Counting, RequestEstimate } from "./types.js";

/**
 * The system prompt Anthropic adds when tools are given: 346 tokens for Claude 4 and 3.7 Sonnet
 * with `tool_choice` auto or none (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview#pricing).
 */
const TOOL_USE_SYSTEM_TOKENS = 346;

/** `POST /v1/messages`: `system`, messages (text, images, tool use and results), tools, `max_tokens`. */
export function messagesEstimate(body: Record<string, unknown>, counting: Counting): RequestEstimate {
  let input = REPLY_PRIMING_TOKENS + blocksTokens(body.system, counting);
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) {
      if (!isRecord(message)) continue;
      input += TOKENS_PER_MESSAGE + stringTokens(counting, message.role) + blocksTokens(message.content, counting);
    }
  }
  if (Array.isArray(body.tools) && body.tools.length > 0)
    input += TOOL_USE_SYSTEM_TOKENS + jsonTokens(counting, body.tools);
  return { input, output: outputReservation(counting, body.max_tokens) };
}

/** A string, or content blocks: text, images by (w × h) / 750, tool results' content, anything else as JSON text. */
/**
 * Tool results nested in tool results deeper than this are counted as JSON text (whose depth is bounded):
 * the API nests none, and a recursion per level would overflow the stack on a body nested 20,000 deep.
 */
const MAX_RESULT_DEPTH = 8;

function blocksTokens(content: unknown, counting: Counting, depth = 0): number {
  if (!Array.isArray(content)) return typeof content === "string" ? stringTokens(counting, content) : 0;
  let tokens = 0;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (typeof block.text === "string") tokens += stringTokens(counting, block.text);
    else if (block.type === "image") tokens += imageTokens(block.source, counting);
    else if (block.type === "tool_result")
      tokens +=
        depth < MAX_RESULT_DEPTH
          ? blocksTokens(block.content, counting, depth + 1)
          : jsonTokens(counting, block.content);
    else {
      const { type: _type, cache_control: _cache, ...rest } = block;
      tokens += jsonTokens(counting, rest);
    }
  }
  return tokens;
}

/** `source` is `{ type: "base64", data }` (its header read) or `{ type: "url", url }`. */
function imageTokens(source: unknown, counting: Counting): number {
  if (!isRecord(source)) return anthropicImageTokens(counting.imageSize);
  if (typeof source.data === "string") {
    return anthropicImageTokens(imageSizeOfBase64(source.data) ?? counting.imageSize);
  }
  return anthropicImageTokens(sizeOfImageUrl(source.url, counting.imageSize));
}
