import type { Endpoint } from "../estimate/types.js";
import type { SseEvent } from "./sse.js";
import { anthropicInput, anthropicPrompt, isCount, usageOf, type SettledUsage, type UsageReading } from "./usage.js";

/** Reads a stream's usage as its events pass. */
export interface StreamUsage {
  /** Sees one event; returns whether the caller sees it. */
  see(event: SseEvent): boolean;
  /** The usage once the stream has reported all of it, else `undefined`. */
  readonly usage: SettledUsage | undefined;
}

/** Only events that carry a usage object are parsed: most chunks are deltas. */
const HAS_USAGE = /"usage"\s*:\s*\{/;

/**
 * A stream usage reader per endpoint: OpenAI chat's usage chunk (hidden when `hideUsageChunk`: the
 * caller did not ask for it), the Responses API's `response.completed` (or `.incomplete`, `.failed`),
 * Anthropic's `message_start` (input) and `message_delta` (output, cumulative).
 */
export function streamUsage(endpoint: Endpoint, reading: UsageReading, hideUsageChunk: boolean): StreamUsage {
  switch (endpoint) {
    case "chat.completions":
      return openAIChat(reading, hideUsageChunk);
    case "responses":
      return usageIn((data) => (data as { response?: { usage?: unknown } }).response?.usage, endpoint, reading);
    case "messages":
      return anthropic(reading);
    case "embeddings":
      return usageIn(() => undefined, endpoint, reading);
  }
}

function openAIChat(reading: UsageReading, hide: boolean): StreamUsage {
  let usage: SettledUsage | undefined;
  return {
    see(event) {
      if (!HAS_USAGE.test(event.data)) return true;
      const chunk = parse(event.data) as { usage?: unknown; choices?: unknown } | undefined;
      const found = usageOf("chat.completions", chunk?.usage, reading);
      if (!found) return true;
      usage = found;
      return !(hide && Array.isArray(chunk?.choices) && chunk.choices.length === 0);
    },
    get usage() {
      return usage;
    },
  };
}

function usageIn(pick: (data: unknown) => unknown, endpoint: Endpoint, reading: UsageReading): StreamUsage {
  let usage: SettledUsage | undefined;
  return {
    see(event) {
      if (HAS_USAGE.test(event.data)) usage = usageOf(endpoint, pick(parse(event.data) ?? {}), reading) ?? usage;
      return true;
    },
    get usage() {
      return usage;
    },
  };
}

function anthropic(reading: UsageReading): StreamUsage {
  let input: number | undefined;
  let prompt: number | undefined;
  let output: number | undefined;
  return {
    see(event) {
      if (!HAS_USAGE.test(event.data)) return true;
      const data = parse(event.data) as { type?: unknown; message?: { usage?: unknown }; usage?: unknown } | undefined;
      const usage = (data?.type === "message_start" ? data.message?.usage : data?.usage) as
        Record<string, unknown> | undefined;
      if (typeof usage !== "object" || usage === null) return true;
      // message_delta's counts are cumulative, and newer API versions repeat the input there.
      input = anthropicInput(usage, reading) ?? input;
      prompt = anthropicPrompt(usage) ?? prompt;
      if (data?.type === "message_delta" && isCount(usage.output_tokens)) output = usage.output_tokens;
      return true;
    },
    get usage() {
      return input !== undefined && output !== undefined ? { input, output, prompt: prompt ?? input } : undefined;
    },
  };
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}
