/**
 * A provider whose rate-limit headers have a known dialect
 * (see docs/providers.md#providers-that-send-rate-limit-headers).
 */
export type ProviderName =
  "openai" | "azure" | "anthropic" | "groq" | "cerebras" | "openrouter" | "together" | "mistral" | "ietf";

/**
 * What a reported budget meters. `input` / `output` are Anthropic's separate ITPM and
 * OTPM buckets; `concurrency` is the IETF draft's `concurrent-requests` unit.
 * @inline
 */
export type ReportedUnit = "requests" | "tokens" | "input" | "output" | "concurrency";

/**
 * How a dimension's window was decided:
 * - `dialect`: the provider's documented convention or the header itself names it;
 * - `inferred`: computed from the limit / remaining / reset triple;
 * - `assumed`: nothing told it, so the shortest window the response allows was taken (a
 *   minute, or longer where the reset bounds it): never a stall of more than that. The
 *   limiter lengthens it as later responses and 429s show more (src/sync/unknown-windows.ts).
 * @inline
 */
export type WindowSource = "dialect" | "inferred" | "assumed";

/** One budget as the server reported it. Every number is finite and non-negative. */
export interface ReportedDimension {
  /** What the budget meters. */
  unit: ReportedUnit;
  /** The bucket's capacity. */
  limit?: number;
  /** What is left now; never above `limit`. */
  remaining?: number;
  /** The bucket's window: it refills at `limit / windowMs`. Absent for concurrency. */
  windowMs?: number;
  /** How `windowMs` was decided. */
  windowSource?: WindowSource;
  /**
   * Milliseconds until the bucket is full again (OpenAI, Anthropic, Groq, Cerebras), until
   * a fixed boundary (OpenRouter), or until some quota returns (IETF `t`).
   */
  resetMs?: number;
}

/** The normalised server view of one response's rate-limit headers. */
export interface RateLimitView {
  /** The dialect that was read: the one asked for, the one detected, or `unknown`. */
  provider: ProviderName | "unknown";
  /**
   * Budgets by name: a shorthand (`rpm`, `tpm`, `rpd`, `tpd`, `itpm`, `otpm`, `concurrency`)
   * when unit and window have one, else `unit/window` (`requests/10s`, `tokens/30d`).
   */
  dimensions: Record<string, ReportedDimension>;
  /**
   * How long the server asked the client to wait, in ms: the longer of `retry-after-ms` and `retry-after`
   * (else IETF `t`), at most a month.
   */
  retryAfterMs?: number;
  /** The server's explicit retry decision (`x-should-retry`). */
  shouldRetry?: boolean;
  /** The response's `Date` header, in epoch ms. */
  serverDate?: number;
}

/** Options for {@link parseRateLimitHeaders}. */
export interface ParseOptions {
  /** Read this provider's dialect. Default: detect it from the header names, else `unknown`. */
  provider?: ProviderName;
  /**
   * Wall-clock epoch ms, against which timestamps become durations when there is no `Date`
   * header. Default: `Date.now()`.
   */
  wallNow?: number;
}

/**
 * One header value as the common header containers hold it.
 * @inline
 */
export type HeaderValue = string | number | readonly string[] | null | undefined;

/**
 * Response headers in any common shape: a fetch `Headers`, a `Map`, an iterable of
 * `[name, value]` pairs, or a plain object such as Node's `IncomingHttpHeaders`
 * (names in any case).
 */
export type HeaderInput =
  | Headers
  | ReadonlyMap<string, HeaderValue>
  | Iterable<readonly [string, HeaderValue]>
  | { readonly [name: string]: HeaderValue };
