import type { DimensionName } from "./dimensions.js";
import { formatGoDuration } from "./go-duration.js";
import { wholeUnitsLeft } from "./meter.js";

/**
 * Which provider's rate-limit headers the simulator sends:
 * - `"openai"`: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, requests = RPM,
 *   tokens = TPM, reset as a Go duration until the bucket is full.
 * - `"groq"`: the same names, but `-requests` describes the per-day bucket (RPD).
 * - `"azure"`: OpenAI's limit/remaining names without reset (Azure does not document one),
 *   with the headers only Azure sends: the request id in `apim-request-id`, and `x-ms-region`.
 * - `"anthropic"`: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 *   reset as an RFC 3339 timestamp of full replenishment.
 *
 * The providers that send none are the `HeaderlessDialect`s.
 */
export type Dialect = "openai" | "anthropic" | "groq" | "azure";

/**
 * A provider that sends no rate-limit headers at all, on success or on a 429, so that only
 * its 429s tell anything (bodies and sources in the repository's docs/providers.md):
 * - `"gemini"`: Gemini's (and Vertex AI's) `RESOURCE_EXHAUSTED` body, a `QuotaFailure`
 *   naming the quota (`quotaId`, `quotaMetric`, `quotaValue`; `…PerDay…` for a per-day one)
 *   and a `RetryInfo` (`retryDelay`).
 * - `"bedrock"`: AWS Bedrock's `ThrottlingException`: header `x-amzn-errortype`, body
 *   `{"message":"Too many tokens, please wait before trying again."}` (or `requests`);
 *   the request id in `x-amzn-requestid`.
 * - `"bare"`: a 429 with a `retry-after` (whole seconds) and a body that names nothing, as
 *   DeepSeek's (whose documented concurrency cap is `concurrency`).
 * - `"openrouter"`: OpenRouter's body, the limit's `X-RateLimit-*` values in
 *   `error.metadata.headers` and nowhere else.
 * - `"self-hosted"`: a vLLM / TGI-like server: at `concurrency` calls in flight, TGI's
 *   `{"error":"Model is overloaded","error_type":"overloaded"}` without a retry hint.
 *
 * Their successful answers have the OpenAI chat-completions shape.
 * @inline
 */
export type HeaderlessDialect = "gemini" | "bedrock" | "bare" | "openrouter" | "self-hosted";

/** Every dialect the simulator speaks: with rate-limit headers or without. */
export type SimulatedDialect = Dialect | HeaderlessDialect;

/** The state of one meter at the moment a response is sent. */
export interface MeterReading {
  readonly limit: number;
  /** Exact level; negative while in debt. */
  readonly level: number;
  /** Milliseconds until the meter is full again. */
  readonly resetMs: number;
}

/** Readings of the configured dimensions; unconfigured ones are absent. */
export type MeterReadings = Partial<Readonly<Record<DimensionName, MeterReading>>>;

type Headers = Record<string, string>;

/** Azure names the region that served a call; the simulator is a region of its own. */
const AZURE_REGION: Headers = { "x-ms-region": "Simulated" };

/**
 * The dialect's rate-limit headers for the given readings, stamped at `wallNow` (epoch ms); Azure's with its region.
 */
export function rateLimitHeaders(dialect: SimulatedDialect, readings: MeterReadings, wallNow: number): Headers {
  switch (dialect) {
    case "openai":
      return { ...openAIGroup("requests", readings.rpm, true), ...openAIGroup("tokens", readings.tpm, true) };
    case "groq":
      return { ...openAIGroup("requests", readings.rpd, true), ...openAIGroup("tokens", readings.tpm, true) };
    case "azure":
      return {
        ...openAIGroup("requests", readings.rpm, false),
        ...openAIGroup("tokens", readings.tpm, false),
        ...AZURE_REGION,
      };
    case "anthropic":
      return anthropicHeaders(readings, wallNow);
    default:
      return {};
  }
}

/** The header that carries the request id in this dialect (Azure's API Management gateway sends its own). */
export function requestIdHeaderName(dialect: SimulatedDialect): string {
  switch (dialect) {
    case "anthropic":
      return "request-id";
    case "azure":
      return "apim-request-id";
    case "bedrock":
      return "x-amzn-requestid";
    default:
      return "x-request-id";
  }
}

/** Bedrock names the exception in a header, with the service's fault namespace. */
const BEDROCK_THROTTLING: Headers = {
  "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
};

/**
 * The headers a 429 adds in this dialect, `waitMs` being the time until the call fits
 * (`undefined`: never): `retry-after` and `retry-after-ms` where headers are sent, `retry-after`
 * alone for `"bare"`, Bedrock's exception name, and nothing for the others, whose hint (if
 * any) is in the body.
 */
export function rejectionHeaders(dialect: SimulatedDialect, waitMs: number | undefined): Headers {
  switch (dialect) {
    case "bedrock":
      return { ...BEDROCK_THROTTLING };
    case "bare":
      return waitMs === undefined ? {} : { "retry-after": String(Math.ceil(waitMs / 1000)) };
    case "gemini":
    case "openrouter":
    case "self-hosted":
      return {};
    default:
      return waitMs === undefined ? {} : retryAfterHeaders(waitMs);
  }
}

/**
 * `retry-after` (whole seconds) and `retry-after-ms`, both rounded up so a
 * client that waits exactly that long is admitted.
 */
export function retryAfterHeaders(waitMs: number): Headers {
  return {
    "retry-after": String(Math.ceil(waitMs / 1000)),
    "retry-after-ms": String(Math.ceil(waitMs)),
  };
}

/** An HTTP `date` header value (IMF-fixdate) for epoch milliseconds. */
export function httpDate(wallNow: number): string {
  return new Date(wallNow).toUTCString();
}

function openAIGroup(suffix: "requests" | "tokens", reading: MeterReading | undefined, withReset: boolean): Headers {
  if (!reading) return {};
  const headers: Headers = {
    [`x-ratelimit-limit-${suffix}`]: String(reading.limit),
    [`x-ratelimit-remaining-${suffix}`]: String(remainingOf(reading)),
  };
  if (withReset) headers[`x-ratelimit-reset-${suffix}`] = formatGoDuration(reading.resetMs);
  return headers;
}

function anthropicHeaders(readings: MeterReadings, wallNow: number): Headers {
  const tokenReadings = [readings.tpm, readings.itpm, readings.otpm].filter((r) => r !== undefined);
  // "tokens" reports the most restrictive token limit in effect: the one with the fewest tokens left.
  const tightest = tokenReadings.reduce<MeterReading | undefined>(
    (best, r) => (best === undefined || remainingOf(r) < remainingOf(best) ? r : best),
    undefined,
  );
  return {
    ...anthropicGroup("requests", readings.rpm, remainingOf, wallNow),
    ...anthropicGroup("tokens", tightest, remainingOf, wallNow),
    ...anthropicGroup("input-tokens", readings.itpm, roundedToThousand, wallNow),
    ...anthropicGroup("output-tokens", readings.otpm, roundedToThousand, wallNow),
  };
}

function anthropicGroup(
  name: string,
  reading: MeterReading | undefined,
  remaining: (reading: MeterReading) => number,
  wallNow: number,
): Headers {
  if (!reading) return {};
  return {
    [`anthropic-ratelimit-${name}-limit`]: String(reading.limit),
    [`anthropic-ratelimit-${name}-remaining`]: String(remaining(reading)),
    [`anthropic-ratelimit-${name}-reset`]: rfc3339Seconds(wallNow + reading.resetMs),
  };
}

function remainingOf(reading: MeterReading): number {
  return Math.max(0, wholeUnitsLeft(reading.level));
}

/** Anthropic rounds input/output remaining to the nearest thousand. */
function roundedToThousand(reading: MeterReading): number {
  return Math.max(0, Math.round(reading.level / 1000) * 1000);
}

/** `2025-02-24T22:25:32Z`; rounded up to the second so it is never earlier than the true time. */
function rfc3339Seconds(epochMs: number): string {
  return new Date(Math.ceil(epochMs / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
