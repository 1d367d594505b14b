import { textTokens } from "../estimate/text.js";
import type { ModelCallParams } from "./types.js";

/** Tokens every message costs beyond its content (role and separators), as OpenAI's cookbook counts chat messages. */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the reply, once per call. */
const REPLY_PRIMING_TOKENS = 3;
/**
 * A file or image whose size is not read here. Anthropic counts an image as width × height / 750 tokens, about
 * 1,600 for the 1.15 megapixels it scales images down to; OpenAI counts a 1024 × 1024 image at high detail as 765
 * (docs.anthropic.com/en/docs/build-with-claude/vision, platform.openai.com/docs/guides/images-vision). A PDF costs
 * more per page: pass `estimate` for those.
 */
export const FILE_TOKENS = 1_600;

type Message = ModelCallParams["prompt"][number];
type Part = Exclude<Message["content"], string>[number];
type ToolResultOutput = Extract<Part, { type: "tool-result" }>["output"];
type Tool = NonNullable<ModelCallParams["tools"]>[number];

/**
 * Estimated input tokens of a call: the system prompt and every message's parts (text, reasoning, tool calls and
 * results by their JSON; files at {@link FILE_TOKENS}, inline text files by their text), the tools' definitions,
 * and each message's overhead. A character count (`textTokens`), not a tokenizer: the limiter corrects it by what
 * usages taught (docs/estimates.md).
 */
export function promptTokens(params: ModelCallParams): number {
  let tokens = REPLY_PRIMING_TOKENS;
  for (const message of params.prompt) {
    tokens += TOKENS_PER_MESSAGE;
    if (typeof message.content === "string") tokens += textTokens(message.content);
    else for (const part of message.content) tokens += partTokens(part);
  }
  for (const tool of params.tools ?? []) tokens += toolTokens(tool);
  return tokens;
}

function partTokens(part: Part): number {
  switch (part.type) {
    case "text":
    case "reasoning":
      return textTokens(part.text);
    case "file":
      return fileTokens(part.mediaType, part.data);
    case "tool-call":
      return textTokens(part.toolName) + jsonTokens(part.input);
    case "tool-result":
      return textTokens(part.toolName) + outputTokens(part.output);
    case "tool-approval-response":
      return textTokens(part.reason ?? "");
    default:
      // A part this version does not know: its JSON, which over-counts rather than under.
      return jsonTokens(part);
  }
}

function outputTokens(output: ToolResultOutput): number {
  switch (output.type) {
    case "text":
    case "error-text":
      return textTokens(output.value);
    case "json":
    case "error-json":
      return jsonTokens(output.value);
    case "execution-denied":
      return textTokens(output.reason ?? "");
    case "content":
      return output.value.reduce(
        (sum, item) => sum + (item.type === "text" ? textTokens(item.text) : item.type === "custom" ? 0 : FILE_TOKENS),
        0,
      );
    default:
      return jsonTokens(output);
  }
}

/** A text file sent inline counts its text; any other file (or one behind a URL) {@link FILE_TOKENS}. */
function fileTokens(mediaType: string, data: Uint8Array | string | URL): number {
  if (!mediaType.startsWith("text/") || data instanceof URL) return FILE_TOKENS;
  if (typeof data !== "string") return textTokens(new TextDecoder().decode(data));
  // A string is base64, or a URL as text.
  if (/^[a-z][a-z0-9+.-]*:/i.test(data)) return FILE_TOKENS;
  const bytes = decodeBase64(data);
  return bytes ? textTokens(new TextDecoder().decode(bytes)) : FILE_TOKENS;
}

/**
 * The bytes of base64 or base64url text (padding and whitespace optional), through `atob`, which every runtime
 * has; `undefined` when it is not base64 (then the file's text is not read).
 */
function decodeBase64(text: string): Uint8Array | undefined {
  const standard = text.replace(/\s+/g, "").replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (standard.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(standard)) return undefined;
  const binary = atob(standard.padEnd(standard.length + ((4 - (standard.length % 4)) % 4), "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toolTokens(tool: Tool): number {
  return tool.type === "function"
    ? textTokens(tool.name) + textTokens(tool.description ?? "") + jsonTokens(tool.inputSchema)
    : textTokens(tool.name) + jsonTokens(tool.args);
}

function jsonTokens(value: unknown): number {
  return typeof value === "string" ? textTokens(value) : textTokens(JSON.stringify(value) ?? "");
}
