import { SECOND } from "./bounds.js";
import { DIALECTS, detectProvider } from "./dialects/index.js";
import { normalizeHeaders } from "./normalize.js";
import { checkProvider } from "./providers.js";
import { boundRetryMs, parseRetryAfter, type TimeContext } from "./reset.js";
import { parseHttpDate } from "./timestamps.js";
import type { HeaderInput, ParseOptions, RateLimitView } from "./types.js";

/** `x-should-retry: true|false`, which both official SDKs obey before anything else. */
function shouldRetryOf(value: string | undefined): boolean | undefined {
  const v = value?.toLowerCase();
  return v === "true" ? true : v === "false" ? false : undefined;
}

/**
 * Reads a response's rate-limit headers into one normalised {@link RateLimitView}.
 *
 * The dialect is `options.provider`'s, else the one the header names give away
 * (Anthropic, Cerebras, Mistral, Together, Azure, IETF), else OpenAI's names read with
 * only the windows the triple tells (`provider: "unknown"`; an untold one is assumed a
 * minute). Absolute timestamps become durations against the response's `Date` when present
 * (so a skewed client clock reads them right), else against `options.wallNow`.
 *
 * Throws TypeError only for an unknown `options.provider`. Pure and total on the
 * headers: malformed, absurd or over-long values are dropped, never thrown, no
 * number in the result is NaN, infinite or negative, and the work done is bounded
 * whatever the input's size.
 *
 * @example
 * const view = parseRateLimitHeaders(response.headers, { provider: "openai" });
 * view.dimensions.tpm; // { unit: "tokens", limit: 150000, remaining: 149984, windowMs: 60000, ... }
 */
export function parseRateLimitHeaders(
  headers: HeaderInput | null | undefined,
  options: ParseOptions = {},
): RateLimitView {
  const map = normalizeHeaders(headers);
  const serverDate = parseHttpDate(map.get("date") ?? "");
  const wallNow = options.wallNow !== undefined && Number.isFinite(options.wallNow) ? options.wallNow : Date.now();
  const ctx: TimeContext =
    serverDate === undefined ? { nowMs: wallNow, nowResolutionMs: 0 } : { nowMs: serverDate, nowResolutionMs: SECOND };
  const provider = options.provider === undefined ? detectProvider(map) : checkProvider(options.provider);
  const read = DIALECTS[provider](map, ctx);
  const view: RateLimitView = { provider, dimensions: read.dimensions };
  // IETF: Retry-After takes precedence over what RateLimit's `t` implies.
  const retryAfterMs =
    parseRetryAfter(map, ctx) ?? (read.retryAfterMs === undefined ? undefined : boundRetryMs(read.retryAfterMs));
  if (retryAfterMs !== undefined) view.retryAfterMs = retryAfterMs;
  const shouldRetry = shouldRetryOf(map.get("x-should-retry"));
  if (shouldRetry !== undefined) view.shouldRetry = shouldRetry;
  if (serverDate !== undefined) view.serverDate = serverDate;
  return view;
}
