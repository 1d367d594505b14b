import { MAX_DURATION_MS, SECOND } from "./bounds.js";
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
 * A reset value in any form a provider sends (shared/providers.md, "The shapes a reset
 * value comes in"): seconds, integer or float (Cerebras, Azure); epoch ms or s when the
 * number is large enough to be one (OpenRouter); a Go duration (OpenAI, Groq); an RFC 3339
 * timestamp (Anthropic); an HTTP date. The forms are told apart by their characters.
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
 * The server's retry delay in ms, read as the official SDKs read it: `retry-after-ms`
 * (float ms) first, then `retry-after` as seconds or as an HTTP date.
 */
export function parseRetryAfter(headers: HeaderMap, ctx: TimeContext): number | undefined {
  const ms = parseDecimal(headers.get("retry-after-ms") ?? "");
  if (ms !== undefined && ms.value <= MAX_DURATION_MS) return ms.value;
  const raw = headers.get("retry-after");
  if (raw === undefined) return undefined;
  const seconds = parseDecimal(raw);
  if (seconds !== undefined) return seconds.value * SECOND <= MAX_DURATION_MS ? seconds.value * SECOND : undefined;
  const date = parseHttpDate(raw);
  return date === undefined ? undefined : until(date, 0, ctx)?.ms;
}
