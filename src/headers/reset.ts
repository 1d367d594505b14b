import { MAX_DURATION_MS, MAX_RETRY_MS, SECOND } from "./bounds.js";
import { parseGoDuration, type Span } from "./durations.js";
import type { HeaderMap } from "./normalize.js";
import { parseDecimal } from "./numbers.js";
import { parseHttpDate, parseRfc3339 } from "./timestamps.js";

/** The server's "now", against which absolute timestamps become durations. */
export interface TimeContext {
  /** Epoch ms: the response's `Date` when it has one (so a skewed client clock does not matter), else wall time. */
  nowMs: number;
  /** How far off `nowMs` may be: 1000 for a `Date` header (whole seconds), 0 for the wall clock. */
  nowResolutionMs: number;
}

/** A bare number at least this large is epoch milliseconds (2001-09-09 onwards), as OpenRouter sends. */
const EPOCH_MS_FROM = 1e12;
/** A bare number at least this large is epoch seconds: as a delay it would be 31 years. */
const EPOCH_S_FROM = 1e9;

/** The span from the server's now to `epochMs`; a moment already past is 0. */
function until(epochMs: number, resolutionMs: number, ctx: TimeContext): Span | undefined {
  const ms = epochMs - ctx.nowMs;
  if (!Number.isFinite(ms) || ms > MAX_DURATION_MS) return undefined;
  return { ms: Math.max(0, ms), resolutionMs: resolutionMs + ctx.nowResolutionMs };
}

/**
 * A reset value in any form a provider sends (docs/providers.md#the-shapes-a-reset-value-comes-in):
 * seconds, integer or float (Cerebras, Azure); epoch ms or s when the number is large enough to be
 * one (OpenRouter); a Go duration (OpenAI, Groq); an RFC 3339 timestamp (Anthropic); an HTTP date.
 * The forms are told apart by their characters.
 */
export function parseReset(raw: string | undefined, ctx: TimeContext): Span | undefined {
  if (raw === undefined) return undefined;
  const n = parseDecimal(raw);
  if (n !== undefined) {
    if (n.value >= EPOCH_MS_FROM) return until(n.value, n.step, ctx);
    if (n.value >= EPOCH_S_FROM) return until(n.value * SECOND, n.step * SECOND, ctx);
    const ms = n.value * SECOND;
    return ms <= MAX_DURATION_MS ? { ms, resolutionMs: n.step * SECOND } : undefined;
  }
  const duration = parseGoDuration(raw);
  if (duration !== undefined) return duration;
  const stamp = parseRfc3339(raw);
  if (stamp !== undefined) return until(stamp.epochMs, stamp.resolutionMs, ctx);
  const date = parseHttpDate(raw);
  return date === undefined ? undefined : until(date, SECOND, ctx);
}

/**
 * The server's retry delay in ms, at most {@link MAX_RETRY_MS}: the longer of `retry-after-ms` (float ms) and
 * `retry-after` (seconds, or an HTTP date). The official SDKs read `retry-after-ms` first and `retry-after`
 * only when that is missing, unreadable or 0 (`retryRequest` in openai-node's and @anthropic-ai/sdk's
 * `client.ts`); hints that disagree (Azure AI Foundry sends `Retry-After: 1` with `Retry-After-Ms: 0`) are
 * waited out here for the longer, the one that does not draw another 429.
 */
export function parseRetryAfter(headers: HeaderMap, ctx: TimeContext): number | undefined {
  const ms = parseDecimal(headers.get("retry-after-ms") ?? "")?.value;
  const raw = headers.get("retry-after");
  const seconds = raw === undefined ? undefined : parseDecimal(raw);
  const date = raw === undefined || seconds !== undefined ? undefined : parseHttpDate(raw);
  const after = seconds !== undefined ? seconds.value * SECOND : date === undefined ? undefined : date - ctx.nowMs;
  const longest = Math.max(ms ?? -Infinity, after ?? -Infinity);
  // A date already past asks for no wait; a number is never negative (parseDecimal takes no sign).
  return longest === -Infinity ? undefined : boundRetryMs(longest);
}

/** A retry delay within [0, {@link MAX_RETRY_MS}]; `undefined` for one that is not a number. */
export function boundRetryMs(ms: number): number | undefined {
  return Number.isNaN(ms) ? undefined : Math.min(MAX_RETRY_MS, Math.max(0, ms));
}
