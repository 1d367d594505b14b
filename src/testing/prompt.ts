/** A message's content as either API sends it: a string, or parts of which only text parts count. */
export type MessageContent =
  | string
  | readonly {
      /** The part's type, e.g. `"text"`, `"image_url"`, `"image"`. */
      readonly type: string;
      /** A text part's text; parts without one count nothing. */
      readonly text?: string;
    }[];

/** The parts of a chat request that make up its prompt, in OpenAI or Anthropic shape. */
export interface PromptParts {
  /** Anthropic's top-level system prompt (OpenAI sends it as a message instead). */
  readonly system?: MessageContent;
  /** The conversation's messages, in order (OpenAI's include a system message, if any). */
  readonly messages: readonly {
    /** The message's content; missing or `null` (an assistant message with only tool calls) counts as empty. */
    readonly content?: MessageContent | null;
  }[];
}

/** Tokens every message costs beyond its text (role and separators), as OpenAI's cookbook counts them. */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the reply, counted once per request. */
const REPLY_PRIMING_TOKENS = 3;

/**
 * The simulator's deterministic prompt-size estimate:
 * `3 + sum over messages (and a non-empty system prompt) of (3 + ceil(chars / 4))`,
 * where chars is the UTF-16 length of the message's text (text parts only;
 * images, tool calls and other parts count nothing).
 */
export function estimatePromptTokens(parts: PromptParts): number {
  const contents: MessageContent[] = parts.system === undefined || textOf(parts.system) === "" ? [] : [parts.system];
  contents.push(...parts.messages.map((m) => m.content ?? ""));
  return contents.reduce<number>(
    (sum, content) => sum + TOKENS_PER_MESSAGE + Math.ceil(textOf(content).length / 4),
    REPLY_PRIMING_TOKENS,
  );
}

function textOf(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
}
