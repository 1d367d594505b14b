import type { RejectionDimension } from "./dimensions.js";
import type { Rejection } from "./rejection.js";

/**
 * One quota a Gemini 429 names in its `google.rpc.QuotaFailure` detail.
 * @inline
 */
export interface GeminiQuotaViolation {
  /** The metric counted, e.g. `generativelanguage.googleapis.com/generate_content_free_tier_requests`. */
  quotaMetric: string;
  /** The quota, e.g. `GenerateRequestsPerMinutePerProjectPerModel-FreeTier` (`…PerDay…` for a per-day one). */
  quotaId: string;
  /** What the quota is per. */
  quotaDimensions: {
    /** Where: `"global"`. */
    location: string;
    /** The model called. */
    model: string;
  };
  /** The quota's limit, as a decimal string. */
  quotaValue: string;
}

/**
 * Gemini's 429 body (`RESOURCE_EXHAUSTED`), the `google.rpc.Status` of the Gemini API.
 * @inline
 */
export interface GeminiErrorBody {
  /** What went wrong. */
  error: {
    /** The HTTP status, repeated: 429. */
    code: number;
    /** Human-readable: the quota exceeded, its limit and model, and `Please retry in …s.`. */
    message: string;
    /** The canonical gRPC status: `"RESOURCE_EXHAUSTED"`. */
    status: "RESOURCE_EXHAUSTED";
    /**
     * Typed details: a `QuotaFailure` (its `violations`, where the simulator knows the quota's name), a `Help`
     * (links), and a `RetryInfo` (`retryDelay`, whole seconds rounded up) when the call can ever fit.
     */
    details: GeminiErrorDetail[];
  };
}

/**
 * One typed detail of a Gemini error (`google.rpc.*`), told apart by `@type`.
 * @inline
 */
export type GeminiErrorDetail = GeminiQuotaFailure | GeminiHelp | GeminiRetryInfo;

/**
 * `google.rpc.QuotaFailure`: the quotas exceeded.
 * @inline
 */
export interface GeminiQuotaFailure {
  /** The detail's type. */
  "@type": "type.googleapis.com/google.rpc.QuotaFailure";
  /** The quotas exceeded. */
  violations: GeminiQuotaViolation[];
}

/**
 * `google.rpc.Help`: where to read about quotas.
 * @inline
 */
export interface GeminiHelp {
  /** The detail's type. */
  "@type": "type.googleapis.com/google.rpc.Help";
  /** Documentation links. */
  links: {
    /** What the link is about. */
    description: string;
    /** The link. */
    url: string;
  }[];
}

/**
 * `google.rpc.RetryInfo`: when to retry.
 * @inline
 */
export interface GeminiRetryInfo {
  /** The detail's type. */
  "@type": "type.googleapis.com/google.rpc.RetryInfo";
  /** A protobuf `Duration` in JSON, e.g. `"37s"`. */
  retryDelay: string;
}

const METRIC_PREFIX = "generativelanguage.googleapis.com/";
const RATE_LIMITS_URL = "https://ai.google.dev/gemini-api/docs/rate-limits";

/**
 * The free tier's metric and quota id of each dimension, as Gemini's 429s name them
 * (docs/providers.md); Gemini meters input tokens, so `tpm` and `itpm` both stand for
 * its input-token quota. Dimensions Gemini has no quota for name none.
 */
const QUOTAS: Partial<Readonly<Record<RejectionDimension, { metric: string; id: string }>>> = {
  rpm: { metric: "generate_content_free_tier_requests", id: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" },
  rpd: { metric: "generate_content_free_tier_requests", id: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" },
  tpm: {
    metric: "generate_content_free_tier_input_token_count",
    id: "GenerateContentInputTokensPerModelPerMinute-FreeTier",
  },
  itpm: {
    metric: "generate_content_free_tier_input_token_count",
    id: "GenerateContentInputTokensPerModelPerMinute-FreeTier",
  },
  tpd: {
    metric: "generate_content_free_tier_input_token_count",
    id: "GenerateContentInputTokensPerModelPerDay-FreeTier",
  },
};

/** The `RESOURCE_EXHAUSTED` body of a Gemini 429 for `model`. */
export function geminiRateLimitBody(rejection: Rejection, model: string): GeminiErrorBody {
  const quota = QUOTAS[rejection.dimension];
  const metric = quota ? `${METRIC_PREFIX}${quota.metric}` : undefined;
  const retrySeconds = rejection.retryAfterMs === undefined ? undefined : Math.ceil(rejection.retryAfterMs / 1000);
  const exceeded = metric ? `\n* Quota exceeded for metric: ${metric}, limit: ${rejection.limit}, model: ${model}` : "";
  const retry = rejection.retryAfterMs === undefined ? "" : `\nPlease retry in ${rejection.retryAfterMs / 1000}s.`;
  const message =
    "You exceeded your current quota, please check your plan and billing details. " +
    `For more information on this error, head to: ${RATE_LIMITS_URL}.${exceeded}${retry}`;
  const details: GeminiErrorDetail[] = [];
  if (quota && metric) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.QuotaFailure",
      violations: [
        {
          quotaMetric: metric,
          quotaId: quota.id,
          quotaDimensions: { location: "global", model },
          quotaValue: String(rejection.limit),
        },
      ],
    });
  }
  details.push({
    "@type": "type.googleapis.com/google.rpc.Help",
    links: [{ description: "Learn more about Gemini API quotas", url: RATE_LIMITS_URL }],
  });
  if (retrySeconds !== undefined) {
    details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retrySeconds}s` });
  }
  return { error: { code: 429, message, status: "RESOURCE_EXHAUSTED", details } };
}
