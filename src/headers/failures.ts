import { SECOND } from "./bounds.js";
import { parseGoDuration } from "./durations.js";
import { normalizeHeaders } from "./normalize.js";
import { parseDecimal, scanDecimal } from "./numbers.js";
import { parseRateLimitHeaders } from "./parse.js";
import {
  bedrockThrottling,
  deepSeekConcurrency,
  googleQuotaFailure,
  isSpendStop,
  vertexQuotaInMessage,
  windowOf,
  type QuotaFacts,
  type QuotaWindow,
} from "./quota-failure.js";
import { boundRetryMs } from "./reset.js";
import type { HeaderInput, ParseOptions, RateLimitView } from "./types.js";

/**
 * Why a call failed, as far as retrying goes:
 * - `rate`: a rate limit (429); retry after the hint;
 * - `billing`: a quota or spend limit that waiting will not lift (OpenAI's 429
 *   `insufficient_quota`, Anthropic's `billing_error` and its 429 "Extra usage is required", xAI's 429
 *   "used all available credits or reached its monthly spending limit", 402): do not retry; it teaches
 *   no rate and pauses nothing;
 * - `overloaded`: the provider is overloaded (Anthropic 529 `overloaded_error`), not the key;
 * - `server`: another 5xx;
 * - `other`: anything else, including failures with no status (connection errors).
 */
export type FailureKind = "rate" | "billing" | "overloaded" | "server" | "other";

/** A failed call, classified, with whatever retry hints it carried. */
export interface FailureClass {
  /** What caused the failure, and so whether retrying can help (see {@link FailureKind}). */
  kind: FailureKind;
  /**
   * Which budget a rate limit hit, when the failure says: `"concurrency"` for a cap on calls in flight
   * (DeepSeek's "exceeds your concurrency limit of 39").
   */
  dimension?: "requests" | "tokens" | "concurrency";
  /**
   * How long to wait before retrying, in ms, at most a month: the longest of the hints the failure carries
   * (headers, message, body fields), else the reset of the budgets its headers show spent.
   */
  retryAfterMs?: number;
  /**
   * The failure names a per-day quota (OpenRouter's `free-models-per-day`, OpenAI's and Groq's "requests per
   * day (RPD)" / "tokens per day (TPD)"): its pause waits for its hint even when a later call succeeds.
   */
  perDay?: true;
  /**
   * The quota's limit as the body states it (Gemini's and Vertex AI's `QuotaFailure` `quotaValue`, DeepSeek's
   * concurrency limit): whole, at least 1 and at most 1e15, else left out. Untrusted: a provider's word on one
   * quota, which a learner may take as a provisional limit of the budget in {@link FailureClass.dimension}.
   */
  quotaValue?: number;
  /**
   * The window the quota counts over, where the failure names it (a `QuotaFailure`'s `quotaId` or metric,
   * Bedrock's "Too many tokens per day", "per-min" / "per day" in a message): `"day"` goes with
   * {@link FailureClass.perDay}.
   */
  quotaWindow?: QuotaWindow;
  /**
   * The IANA time zone at whose midnight the per-day quota's day turns, where the provider documents it:
   * `"America/Los_Angeles"` for Gemini and Vertex AI ("RPD quotas reset at midnight Pacific time"). The
   * limiter pauses the quota's budget until then, however short the body's retry hint.
   */
  dayTimeZone?: string;
  /** The server's explicit retry decision (`x-should-retry`). */
  shouldRetry?: boolean;
}

/** A failed call's parts. */
export interface FailureParts {
  /** HTTP status. */
  status?: number;
  /** Response headers, in any shape {@link parseRateLimitHeaders} takes. */
  headers?: HeaderInput | null;
  /** The error body: parsed JSON, or its text (read only up to 64 KiB). */
  body?: unknown;
}

/** A longer body text is not parsed: error bodies are small, and JSON.parse is not free. */
const MAX_BODY_LENGTH = 65_536;
/** Only the start of a message is searched for hints. */
const MAX_MESSAGE_LENGTH = 4_096;
/** Error codes and types are short identifiers; longer strings are not looked at. */
const MAX_CODE_LENGTH = 128;
/** At most this many Gemini `details` entries are looked at. */
const MAX_DETAILS = 16;

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A hint that is a number of ms, bounded to a month (see {@link boundRetryMs}); a negative one is no hint. */
function finiteMs(ms: number | undefined): number | undefined {
  return ms === undefined || !(ms >= 0) ? undefined : boundRetryMs(ms);
}

/** The longest of the hints given. */
function longest(...hints: (number | undefined)[]): number | undefined {
  let ms: number | undefined;
  for (const hint of hints) if (hint !== undefined && hint > (ms ?? -1)) ms = hint;
  return ms;
}

/** "per-day", "per day", Gemini's quota ids (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`). */
const PER_DAY = /per[- ]?day/i;

/** The body as an object: parsed from text when it is JSON, the first element of an array (Gemini). */
function bodyObject(body: unknown): { root?: Json; message?: string } {
  if (typeof body === "string") {
    if (body.length > MAX_BODY_LENGTH) return {};
    try {
      return bodyObject(JSON.parse(body) as unknown);
    } catch {
      return { message: body }; // a plain-text error body may still say "try again in 20s"
    }
  }
  const root = object(Array.isArray(body) ? (body as unknown[])[0] : body);
  return root === undefined ? {} : { root };
}

/** The parts of a failure: a {@link FailureParts}, or an openai-node / Anthropic SDK `APIError`. */
function partsOf(failure: unknown): { status?: number; headers?: HeaderInput; body?: unknown } {
  const f = object(failure);
  if (f === undefined) return {};
  const status = httpStatus(f.status);
  const headers = typeof f.headers === "object" && f.headers !== null ? (f.headers as HeaderInput) : undefined;
  // The SDKs put the parsed body in `.error`: openai-node the inner `{ message, type, code }`,
  // Anthropic's SDK the whole `{ type: "error", error: { ... } }`.
  return { status: status ?? httpStatus(object(f.$metadata)?.httpStatusCode), headers, body: bodyOf(f) };
}

/** The error body an SDK error holds; the AWS SDK's `ThrottlingException` has none but its message. */
function bodyOf(f: Json): unknown {
  if ("body" in f) return f.body;
  if (f.error !== undefined) return f.error;
  const message = text(f.message);
  return f.name === THROTTLING && message !== undefined ? { type: THROTTLING, message } : undefined;
}

/** AWS's error type for a throttled call (`x-amzn-errortype: ThrottlingException:http://…`, the SDK's `name`). */
const THROTTLING = "ThrottlingException";

/** Billing problems: waiting does not lift them (docs/providers.md#openai: "not retryable although 429"). */
function isBillingCode(code: string): boolean {
  return code === "insufficient_quota" || code.includes("billing") || code.includes("spend_limit_reached");
}

function dimensionOfCode(code: string): "requests" | "tokens" | undefined {
  // OpenAI's 429 `type` is "tokens" or "requests"; Together's "dynamic_token_limited" / "dynamic_request_limited".
  if (code === "tokens" || code.startsWith("tokens_") || code === "dynamic_token_limited") return "tokens";
  if (code === "requests" || code.startsWith("requests_") || code === "dynamic_request_limited") return "requests";
  return undefined;
}

function dimensionOfMessage(message: string): "requests" | "tokens" | undefined {
  // OpenAI: "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): ..."
  if (message.includes(" on tokens per ")) return "tokens";
  if (message.includes(" on requests per ")) return "requests";
  return undefined;
}

/** Which budget the headers show exhausted, when all exhausted ones are of one kind. */
function dimensionOfView(view: RateLimitView): "requests" | "tokens" | undefined {
  let found: "requests" | "tokens" | undefined;
  for (const d of Object.values(view.dimensions)) {
    if (d.remaining !== 0 || d.unit === "concurrency") continue;
    const kind = d.unit === "requests" ? "requests" : "tokens";
    if (found !== undefined && found !== kind) return undefined;
    found = kind;
  }
  return found;
}

/** The longest reset among exhausted budgets: when every one of them has room again. */
function exhaustedResetMs(view: RateLimitView): number | undefined {
  let ms: number | undefined;
  for (const d of Object.values(view.dimensions)) {
    if (d.remaining === 0 && d.resetMs !== undefined) ms = Math.max(ms ?? 0, d.resetMs);
  }
  return ms;
}

function isDurationChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || (c >= 97 && c <= 122) || c === 0xb5 || c === 0x3bc;
}

const WORD_UNITS: ReadonlyMap<string, number> = new Map([
  ["ms", 1],
  ["millisecond", 1],
  ["milliseconds", 1],
  ["s", SECOND],
  ["sec", SECOND],
  ["secs", SECOND],
  ["second", SECOND],
  ["seconds", SECOND],
  ["minute", 60 * SECOND],
  ["minutes", 60 * SECOND],
]);

/** A delay written at `i`: a Go duration (`2.754s`, `1m30s`, `20ms`) or a number and a word (`6 seconds`). */
function delayAt(s: string, i: number): number | undefined {
  let end = i;
  while (end < s.length && isDurationChar(s.charCodeAt(end))) end++;
  while (end > i && s[end - 1] === ".") end--; // the sentence's full stop
  const go = parseGoDuration(s.slice(i, end));
  if (go !== undefined) return go.ms;
  const n = scanDecimal(s, i);
  if (n === undefined) return undefined;
  let start = n.end;
  if (s[start] === " ") start++;
  let stop = start;
  while (stop < s.length && stop - start < 12 && s.charCodeAt(stop) >= 97 && s.charCodeAt(stop) <= 122) stop++;
  const unit = WORD_UNITS.get(s.slice(start, stop));
  return unit === undefined ? undefined : n.value * unit;
}

/**
 * A delay in an error message: OpenAI's "Please try again in 2.754s." (also `1m30s`,
 * `20ms`), Azure's "Please retry after 6 seconds.".
 */
function delayInMessage(message: string): number | undefined {
  const lower = message.toLowerCase();
  for (const phrase of ["try again in ", "retry after ", "retry in "]) {
    const at = lower.indexOf(phrase);
    const ms = at < 0 ? undefined : finiteMs(delayAt(lower, at + phrase.length));
    if (ms !== undefined) return ms;
  }
  return undefined;
}

/** Gemini / Vertex: `error.details[]` holding a `google.rpc.RetryInfo` with `retryDelay: "37s"`. */
function geminiRetryDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const entry of (details as unknown[]).slice(0, MAX_DETAILS)) {
    const d = object(entry);
    const type = text(d?.["@type"]);
    const delay = text(d?.retryDelay);
    if (type !== undefined && type.endsWith("google.rpc.RetryInfo") && delay !== undefined) {
      return parseGoDuration(delay)?.ms;
    }
  }
  return undefined;
}

/** OpenRouter's `retry_after_seconds`, a number or numeric text. */
function secondsToMs(value: unknown): number | undefined {
  if (typeof value === "number") return finiteMs(value * SECOND);
  const seconds = typeof value === "string" ? parseDecimal(value) : undefined;
  return seconds === undefined ? undefined : finiteMs(seconds.value * SECOND);
}

/** Billing first (it is not retryable even as a 429), then overload, rate, server. */
function kindOf(
  status: number | undefined,
  codes: readonly string[],
  grpcStatus: unknown,
  message: string,
): FailureKind {
  if (status === 402 || codes.some(isBillingCode) || isSpendStop(message)) return "billing";
  if (status === 529 || codes.includes("overloaded_error")) return "overloaded";
  if (status === 429) return "rate";
  if (status !== undefined) return status >= 500 ? "server" : "other";
  // No status (a body alone, or a streamed error event): the error's type says it.
  const rate = codes.includes("rate_limit_error") || codes.includes("rate_limit_exceeded");
  return rate || grpcStatus === "RESOURCE_EXHAUSTED" || codes.includes(THROTTLING) ? "rate" : "other";
}

/** What the body says of the quota hit: Google's `QuotaFailure` or Vertex's message, Bedrock's, DeepSeek's. */
function quotaOf(details: unknown, message: string, codes: readonly string[]): QuotaFacts | undefined {
  return (
    googleQuotaFailure(details, MAX_DETAILS) ??
    vertexQuotaInMessage(message) ??
    (codes.includes(THROTTLING) || message.includes("please wait before trying again")
      ? bedrockThrottling(message)
      : undefined) ??
    deepSeekConcurrency(message)
  );
}

/**
 * Classifies a failed call and gathers its retry hints. Takes {@link FailureParts}
 * (`{ status, headers, body }`) or an openai-node / Anthropic SDK error as thrown
 * (`.status`, `.headers`, `.error`), so `catch (e) { classifyFailure(e) }` works. Pure;
 * never throws.
 *
 * Billing codes come first (OpenAI's `insufficient_quota` and `billing_*`, Anthropic's
 * `billing_error` and `*_spend_limit_reached`, any 402), then 529 / `overloaded_error`, then
 * 429, then other 5xx. `retryAfterMs` is the longest of: `retry-after-ms` / `retry-after`
 * (else IETF `t`) in the headers; "try again in ..." in the message; OpenRouter's
 * `error.metadata.retry_after_seconds` and `error.metadata.headers`; Gemini's
 * `RetryInfo.retryDelay`; failing all of them, the reset of the budgets the headers show
 * exhausted. Every hint is at most a month. `perDay` is set when the message or the body's
 * quota names a per-day quota. What the body says of its quota (Gemini's and Vertex AI's
 * `QuotaFailure`, Bedrock's `ThrottlingException`, DeepSeek's concurrency limit) gives
 * `dimension`, `quotaWindow`, `quotaValue` and `dayTimeZone`; a spend stop sent as a 429
 * (xAI's credits, Anthropic's "Extra usage is required") is `billing` (docs/providers.md).
 *
 * @param failure the call's {@link FailureParts}, or the error its SDK threw.
 * @param options passed to {@link parseRateLimitHeaders} for the response's headers.
 */
export function classifyFailure(failure: FailureParts, options?: ParseOptions): FailureClass;
export function classifyFailure(failure: unknown, options?: ParseOptions): FailureClass;
export function classifyFailure(failure: unknown, options: ParseOptions = {}): FailureClass {
  try {
    return readFailure(failure, options);
  } catch {
    // A thrown value whose getters, Proxy traps or header iterator throw tells nothing to retry on.
    return { kind: "other" };
  }
}

/**
 * {@link classifyFailure}, but throwing what reading a hostile value throws: header sync reports it and
 * changes nothing, where a caller classifying an error wants an answer.
 */
export function readFailure(failure: unknown, options: ParseOptions = {}): FailureClass {
  const parts = partsOf(failure);
  const { root, message: bodyText } = bodyObject(parts.body);
  // `{ error: { ... } }` for most providers; openai-node hands over the inner object itself.
  const inner = object(root?.error) ?? root;
  const details = inner?.details;
  // Anthropic's SDK names the specific cause in `error.details.error_code`; Together in `error_type`.
  const codes = [inner?.type, inner?.code, inner?.error_type, root?.error_type, object(details)?.error_code].filter(
    (c): c is string => typeof c === "string" && c.length <= MAX_CODE_LENGTH,
  );
  // xAI's body is `{ code, error: "Your team …" }`: the message is `error` itself.
  const message = (text(inner?.message) ?? text(root?.error) ?? bodyText ?? "").slice(0, MAX_MESSAGE_LENGTH);
  // OpenRouter and Gemini repeat the status as a numeric `error.code`.
  const status = parts.status ?? httpStatus(inner?.code);
  const view = parseRateLimitHeaders(parts.headers, options);
  const metadata = object(inner?.metadata);
  const metaHeaders = object(metadata?.headers);
  const metaView =
    metaHeaders === undefined
      ? undefined
      : parseRateLimitHeaders(metaHeaders as HeaderInput, { provider: "openrouter", wallNow: options.wallNow });

  if (normalizeHeaders(parts.headers).get("x-amzn-errortype")?.startsWith(THROTTLING)) codes.push(THROTTLING);

  const kind = kindOf(status, codes, inner?.status, message);
  const result: FailureClass = { kind };
  if (kind === "rate") {
    const quota = quotaOf(details, message, codes);
    const dimension =
      quota?.dimension ??
      codes.map(dimensionOfCode).find((d) => d !== undefined) ??
      dimensionOfMessage(message) ??
      dimensionOfView(view) ??
      (metaView === undefined ? undefined : dimensionOfView(metaView));
    if (dimension !== undefined) result.dimension = dimension;
    const window = quota?.window ?? windowOf(message);
    if (window !== undefined) result.quotaWindow = window;
    if (window === "day" || PER_DAY.test(message)) result.perDay = true;
    if (quota?.value !== undefined) result.quotaValue = quota.value;
    if (quota?.dayTimeZone !== undefined) result.dayTimeZone = quota.dayTimeZone;
  }
  // Hints that disagree: the longer one is the one that does not draw another 429.
  const retryAfterMs =
    longest(
      view.retryAfterMs,
      delayInMessage(message),
      secondsToMs(metadata?.retry_after_seconds),
      metaView?.retryAfterMs,
      finiteMs(geminiRetryDelay(details)),
    ) ??
    (metaView === undefined ? undefined : finiteMs(exhaustedResetMs(metaView))) ??
    finiteMs(exhaustedResetMs(view));
  if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
  const shouldRetry = view.shouldRetry ?? metaView?.shouldRetry;
  if (shouldRetry !== undefined) result.shouldRetry = shouldRetry;
  return result;
}
