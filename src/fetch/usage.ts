import type { Endpoint } from "../estimate/types.js";

/** A response's usage, as the limiter settles it. */
export interface SettledUsage {
  input: number;
  output: number;
  /**
   * The whole prompt as the provider counted it, what the library's estimate is compared with: the input, plus
   * Anthropic's cache reads where `input` leaves them out.
   */
  prompt: number;
  /** Of `input`, the tokens read from the prompt cache. */
  cachedInput?: number;
  /** Of `input`, the tokens written to the prompt cache. */
  cacheWrite?: number;
}

/** How usage is read: whether Anthropic's cache reads count as input. */
export interface UsageReading {
  readonly countCacheReads: boolean;
}

/**
 * The usage a response body (or a stream's usage object) reports, by endpoint, or `undefined` when it
 * reports none: OpenAI chat `prompt_tokens`/`completion_tokens`, Responses `input_tokens`/`output_tokens`,
 * embeddings `prompt_tokens`, Anthropic `input_tokens` + `cache_creation_input_tokens` (+ cache reads
 * when counted) and `output_tokens`.
 */
export function usageOf(endpoint: Endpoint, usage: unknown, reading: UsageReading): SettledUsage | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  switch (endpoint) {
    case "chat.completions":
      return cached(pair(u.prompt_tokens, u.completion_tokens), u.prompt_tokens_details, 0);
    case "embeddings":
      return pair(u.prompt_tokens, 0);
    case "responses":
      return cached(pair(u.input_tokens, u.output_tokens), u.input_tokens_details, 0);
    case "messages": {
      const reads = reading.countCacheReads && isCount(u.cache_read_input_tokens) ? u.cache_read_input_tokens : 0;
      const writes = isCount(u.cache_creation_input_tokens) ? u.cache_creation_input_tokens : 0;
      return withCache(pair(anthropicInput(u, reading), u.output_tokens, anthropicPrompt(u)), reads, writes);
    }
  }
}

/** OpenAI's usage with its `cached_tokens` (a part of the prompt's) named `cachedInput`, for the quotas' prices. */
function cached(usage: SettledUsage | undefined, details: unknown, writes: number): SettledUsage | undefined {
  const reads =
    typeof details === "object" && details !== null ? (details as { cached_tokens?: unknown }).cached_tokens : 0;
  return withCache(usage, isCount(reads) ? reads : 0, writes);
}

/** `usage` with the cache reads and writes of its input, each where above 0 (and never beyond the input). */
function withCache(usage: SettledUsage | undefined, reads: number, writes: number): SettledUsage | undefined {
  if (!usage) return undefined;
  const cachedInput = Math.min(reads, usage.input);
  const cacheWrite = Math.min(writes, usage.input - cachedInput);
  if (cachedInput > 0) usage.cachedInput = cachedInput;
  if (cacheWrite > 0) usage.cacheWrite = cacheWrite;
  return usage;
}

/**
 * Anthropic's whole prompt: `input_tokens` counts only what follows the last cache breakpoint, so the cache's
 * reads and writes are added back (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
 */
export function anthropicPrompt(u: Record<string, unknown>): number | undefined {
  return anthropicInput(u, { countCacheReads: true });
}

/**
 * Anthropic's input as its rate limits count it: ITPM counts `input_tokens` and
 * `cache_creation_input_tokens`, and on most current models not `cache_read_input_tokens`
 * (https://docs.anthropic.com/en/api/rate-limits). `undefined` without `input_tokens`.
 */
export function anthropicInput(u: Record<string, unknown>, reading: UsageReading): number | undefined {
  if (!isCount(u.input_tokens)) return undefined;
  const created = isCount(u.cache_creation_input_tokens) ? u.cache_creation_input_tokens : 0;
  const read = reading.countCacheReads && isCount(u.cache_read_input_tokens) ? u.cache_read_input_tokens : 0;
  return u.input_tokens + created + read;
}

function pair(input: unknown, output: unknown, prompt: unknown = input): SettledUsage | undefined {
  return isCount(input) && isCount(output) ? { input, output, prompt: isCount(prompt) ? prompt : input } : undefined;
}

export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}
