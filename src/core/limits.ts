/** The shapes of budgets and of what a call costs against them. */

/**
 * What a dimension counts.
 * @inline
 */
export type Unit = "requests" | "tokens" | "input" | "output";

/**
 * A budget beyond the shorthands, e.g. `{ unit: "tokens", limit: 20_000, windowMs: 10_000 }`.
 *
 * @example
 * ```ts
 * import { Limiter } from "llm-limiter";
 *
 * // A 10-second token budget beside the per-minute requests.
 * const limiter = new Limiter({
 *   rpm: 600,
 *   limits: { "tokens/10s": { unit: "tokens", limit: 20_000, windowMs: 10_000 } },
 * });
 * ```
 */
export interface CustomLimit {
  /** What it counts: one per request, total tokens, input tokens or output tokens. */
  unit: Unit;
  /** Units that refill over `windowMs`; at most `1e15` (as every limit and capacity). */
  limit: number;
  /** The window the limit is stated over, in milliseconds; at most 366 days. */
  windowMs: number;
  /**
   * Burst size: what a full bucket admits at once.
   * @default the `limit`: a bucket that is full after a window idle
   */
  capacity?: number;
}

/** The budgets of a key. Every one is optional; an omitted one is not limited locally. */
export interface Limits {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens (input + output) per minute. */
  tpm?: number;
  /** Requests per day. */
  rpd?: number;
  /** Tokens (input + output) per day. */
  tpd?: number;
  /** Input tokens per minute (Anthropic's ITPM). Estimates must then be `{ input, output }`. */
  itpm?: number;
  /** Output tokens per minute (Anthropic's OTPM). Estimates must then be `{ input, output }`. */
  otpm?: number;
  /** Requests in flight at once: a slot is held from admission until `release()`. */
  concurrency?: number;
  /** Any other budget, by name: a window other than a minute or a day, or a unit apart. */
  limits?: Record<string, CustomLimit>;
  /**
   * Burst size per dimension name, for a provider whose bucket holds less than its limit.
   * @default each dimension's `limit`
   * @example
   * ```ts
   * import { Limiter } from "llm-limiter";
   *
   * // 200k tokens a minute, but never more than 50k at once.
   * const limiter = new Limiter({ tpm: 200_000, capacity: { tpm: 50_000 } });
   * ```
   */
  capacity?: Record<string, number>;
}

/**
 * Changes for {@link Limits} at run time: a given value replaces the current
 * one, `null` removes the budget, an omitted key leaves it as it is.
 */
export type LimitChanges = {
  [K in Exclude<keyof Limits, "limits" | "capacity">]?: number | null;
} & {
  /** Custom budgets to add or replace; `null` removes one. */
  limits?: Record<string, CustomLimit | null>;
  /** Burst sizes to set; `null` restores the default (the limit). */
  capacity?: Record<string, number | null>;
};

/**
 * A request's expected cost: total tokens (prompt + max_tokens; 0 for limits on
 * requests only), or `{ input, output }` with `output` = max_tokens, which is
 * required once input or output budgets are configured.
 */
export type Estimate =
  | number
  | {
      /** Input (prompt) tokens. */
      input: number;
      /** Output tokens: `max_tokens` for an estimate, the answer's tokens for a usage. */
      output: number;
      /**
       * Of `input`, the tokens read from the prompt cache: priced at `prices.cachedInput` (rate limits count
       * them as `input`).
       * @default 0
       */
      cachedInput?: number;
      /**
       * Of `input`, the tokens written to the prompt cache: priced at `prices.cacheWrite`.
       * @default 0
       */
      cacheWrite?: number;
    };

/** What a call actually used: same shapes as {@link Estimate}. */
export type Usage = Estimate;
