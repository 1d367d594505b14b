import { MAX_COUNT } from "./bounds.js";
import { parseDecimal } from "./numbers.js";

/**
 * The window a quota counts over, as the 429 names it.
 * @inline
 */
export type QuotaWindow = "minute" | "day";

/** What a 429's body says of the quota it hit (docs/providers.md has the shapes and their sources). */
export interface QuotaFacts {
  /** Which budget: requests, tokens, or calls in flight. */
  dimension?: "requests" | "tokens" | "concurrency";
  /** The quota's limit: whole, at least 1, at most `MAX_COUNT`. */
  value?: number;
  /** Per minute or per day. */
  window?: QuotaWindow;
  /** The IANA zone at whose midnight a per-day quota's day turns, where the provider documents it. */
  dayTimeZone?: string;
}

/** At most this many `QuotaFailure` violations are looked at. */
const MAX_VIOLATIONS = 16;
/** Quota ids and metrics are short identifiers; longer strings are not looked at. */
const MAX_ID_LENGTH = 256;

/**
 * Google's per-day quotas reset at midnight Pacific time: "Requests per day (RPD) quotas reset at midnight
 * Pacific time" (ai.google.dev/gemini-api/docs/rate-limits).
 */
const GOOGLE_DAY_ZONE = "America/Los_Angeles";

const PER_DAY = /per[-_ ]?day/i;
const PER_MINUTE = /per[-_ ]?min/i;

/** The window a quota id, metric or message names. */
export function windowOf(s: string): QuotaWindow | undefined {
  if (PER_DAY.test(s)) return "day";
  if (PER_MINUTE.test(s)) return "minute";
  return undefined;
}

/** The budget a quota id or metric counts: Google's metrics end in `_requests`, `_token_count`. */
function dimensionOf(s: string): "requests" | "tokens" | undefined {
  if (/token/i.test(s)) return "tokens";
  if (/request/i.test(s)) return "requests";
  return undefined;
}

/** A quota's limit from outside: a whole number of at least 1 and at most {@link MAX_COUNT}, else none. */
export function quotaValueOf(value: unknown): number | undefined {
  const n =
    typeof value === "number" ? value : typeof value === "string" ? parseDecimal(value.trim())?.value : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= MAX_COUNT ? n : undefined;
}

function shortText(value: unknown): string | undefined {
  return typeof value === "string" && value.length <= MAX_ID_LENGTH ? value : undefined;
}

/**
 * Gemini's and Vertex AI's `google.rpc.QuotaFailure` detail (`quotaId`, `quotaMetric`, `quotaValue` per
 * violation) among a `google.rpc.Status`'s `details`: the violation that binds longest (a per-day one over
 * a per-minute one; of equals, the first).
 */
export function googleQuotaFailure(details: unknown, maxDetails: number): QuotaFacts | undefined {
  if (!Array.isArray(details)) return undefined;
  let best: QuotaFacts | undefined;
  for (const entry of (details as unknown[]).slice(0, maxDetails)) {
    if (typeof entry !== "object" || entry === null) continue;
    const detail = entry as Record<string, unknown>;
    const type = shortText(detail["@type"]);
    if (type === undefined || !type.endsWith("google.rpc.QuotaFailure") || !Array.isArray(detail.violations)) continue;
    for (const v of (detail.violations as unknown[]).slice(0, MAX_VIOLATIONS)) {
      if (typeof v !== "object" || v === null) continue;
      const violation = v as Record<string, unknown>;
      const names = `${shortText(violation.quotaId) ?? ""} ${shortText(violation.quotaMetric) ?? ""}`;
      const facts: QuotaFacts = {};
      const window = windowOf(names);
      const dimension = dimensionOf(names);
      const value = quotaValueOf(violation.quotaValue);
      if (window !== undefined) facts.window = window;
      if (window === "day") facts.dayTimeZone = GOOGLE_DAY_ZONE;
      if (dimension !== undefined) facts.dimension = dimension;
      if (value !== undefined) facts.value = value;
      if (best === undefined || (facts.window === "day" && best.window !== "day")) best = facts;
    }
  }
  return best;
}

/**
 * Vertex AI names the quota in its message: "Quota exceeded for
 * aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: …".
 */
export function vertexQuotaInMessage(message: string): QuotaFacts | undefined {
  const at = message.indexOf("aiplatform.googleapis.com/");
  if (at < 0) return undefined;
  const metric = /^aiplatform\.googleapis\.com\/[a-z0-9_]{1,200}/.exec(message.slice(at))?.[0];
  if (metric === undefined) return undefined;
  const facts: QuotaFacts = {};
  const window = windowOf(metric);
  const dimension = dimensionOf(metric);
  if (window !== undefined) facts.window = window;
  if (window === "day") facts.dayTimeZone = GOOGLE_DAY_ZONE;
  if (dimension !== undefined) facts.dimension = dimension;
  return facts;
}

/**
 * AWS Bedrock's `ThrottlingException` message (header `x-amzn-errortype`): "Too many tokens, please wait
 * before trying again." against "Too many requests, …"; "Too many tokens per day, …" for a daily quota.
 */
export function bedrockThrottling(message: string): QuotaFacts | undefined {
  const m = /^too many (tokens|requests)( per (day|minute))?\b/i.exec(message.trimStart());
  if (m === null) return undefined;
  const facts: QuotaFacts = { dimension: m[1]!.toLowerCase() === "tokens" ? "tokens" : "requests" };
  if (m[3] !== undefined) facts.window = m[3].toLowerCase() === "day" ? "day" : "minute";
  return facts;
}

/**
 * DeepSeek's concurrency 429: "Your current concurrency is 40, which exceeds your concurrency limit of 39
 * based on your remaining balance. …"; the limit is the quota's value.
 */
export function deepSeekConcurrency(message: string): QuotaFacts | undefined {
  const m = /exceeds your concurrency limit of (\d{1,16})/i.exec(message);
  if (m === null && !/\bconcurrency limit\b/i.test(message)) return undefined;
  const facts: QuotaFacts = { dimension: "concurrency" };
  const value = m === null ? undefined : quotaValueOf(m[1]);
  if (value !== undefined) facts.value = value;
  return facts;
}

/**
 * A 429 that is a spend or credit stop, which waiting does not lift: xAI's "Your team … has either used all
 * available credits or reached its monthly spending limit", Anthropic's "Extra usage is required for long
 * context requests." (a `rate_limit_error`) and "You're out of extra usage".
 */
export function isSpendStop(message: string): boolean {
  const lower = message.toLowerCase();
  return (
    lower.includes("used all available credits") ||
    lower.includes("monthly spending limit") ||
    lower.includes("extra usage is required") ||
    lower.includes("out of extra usage")
  );
}
