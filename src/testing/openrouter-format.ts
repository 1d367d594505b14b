import type { Rejection } from "./rejection.js";

/**
 * OpenRouter's 429 body: the limit that bound, its headers carried in the body alone.
 * @inline
 */
export interface OpenRouterErrorBody {
  /** What went wrong. */
  error: {
    /** `Rate limit exceeded: free-models-per-min. ` (or `free-models-per-day`). */
    message: string;
    /** The HTTP status, repeated: 429. */
    code: number;
    /** Where OpenRouter puts what it does not send as headers. */
    metadata: {
      /**
       * The limit's `X-RateLimit-Limit`, `X-RateLimit-Remaining` (`"0"`) and `X-RateLimit-Reset`
       * (epoch milliseconds: when the call fits again, rounded up to the millisecond).
       */
      headers: Record<"X-RateLimit-Limit" | "X-RateLimit-Remaining" | "X-RateLimit-Reset", string>;
      /** The upstream provider that refused, or `null` when OpenRouter's own limit did. */
      provider_name: string | null;
    };
  };
  /** The account's id. */
  user_id: string;
}

const DAY_DIMENSIONS = new Set(["rpd", "tpd"]);

/** OpenRouter's body for a 429 of its own limits, stamped at `wallNow` (epoch ms). */
export function openRouterRateLimitBody(rejection: Rejection, wallNow: number): OpenRouterErrorBody {
  const name = DAY_DIMENSIONS.has(rejection.dimension) ? "free-models-per-day" : "free-models-per-min";
  const headers: OpenRouterErrorBody["error"]["metadata"]["headers"] = {
    "X-RateLimit-Limit": String(rejection.limit),
    "X-RateLimit-Remaining": "0",
    "X-RateLimit-Reset": String(Math.ceil(wallNow + (rejection.retryAfterMs ?? 0))),
  };
  return {
    error: {
      message: `Rate limit exceeded: ${name}. `,
      code: 429,
      metadata: { headers, provider_name: null },
    },
    user_id: "user_simulated",
  };
}
