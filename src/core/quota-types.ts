/** The shapes of the budgets a business sets: calendar quotas, prices, and what `quota()` reports. */
/**
 * What a calendar quota counts: dollars (at `prices`), tokens (input + output), input or output tokens, requests.
 * @inline
 */
export type QuotaUnit = "usd" | "tokens" | "input" | "output" | "requests";

/**
 * A calendar period in the limiter's `timeZone`: `"week"` is the ISO week, from Monday 00:00.
 * @inline
 */
export type QuotaPeriod = "hour" | "day" | "week" | "month";

/**
 * Limits per calendar period, per unit: `{ usd: { day: 50, month: 1_000 }, tokens: { day: 5_000_000 } }`. Each is a
 * fixed window aligned to the calendar in `timeZone` (a day across a daylight-saving change lasts 23 or 25 hours).
 * Dollars are kept in whole nano-dollars; counts are whole units.
 */
export type Quotas = { readonly [U in QuotaUnit]?: { readonly [P in QuotaPeriod]?: number } };

/**
 * USD per million tokens. Prices have up to three decimals per million tokens (a finer one rounds up), so
 * costs are whole nano-dollars and a month of calls sums without drift.
 * @inline
 */
export interface Prices {
  /** Input (prompt) tokens not read from or written to the cache. */
  readonly input: number;
  /** Output tokens. */
  readonly output: number;
  /**
   * Input tokens read from the prompt cache (`cachedInput` of an estimate or usage).
   * @default the `input` price
   */
  readonly cachedInput?: number;
  /**
   * Input tokens written to the prompt cache (`cacheWrite` of an estimate or usage).
   * @default the `input` price
   */
  readonly cacheWrite?: number;
}

/**
 * One quota in its current period, as `limiter.quota()` reports it (dollars for `usd`).
 * @inline
 */
export interface QuotaState {
  /** The configured limit of the period. */
  readonly limit: number;
  /** What released calls admitted in this period cost. */
  readonly used: number;
  /** What calls admitted in this period and not yet released hold: their estimate, or their usage once settled. */
  readonly reserved: number;
  /** `limit - used - reserved`, never below 0: what a call could still take now. */
  readonly remaining: number;
  /** Epoch ms at which the period ends and the next begins with nothing used. */
  readonly resetsAt: number;
}

/** Every configured quota in its current period, by unit, then by period. */
export type QuotaReport = { [U in QuotaUnit]?: { [P in QuotaPeriod]?: QuotaState } };

/**
 * A quota crossed 80% or 100% of its limit (used and reserved together), or its period turned
 * (`limiter.on("quota", ...)`). A tenant's quota is told only when it held something.
 */
export interface QuotaEvent extends QuotaState {
  /** What happened: `"80%"` and `"100%"` once per period each, `"turned"` as the period ends (its last figures). */
  readonly change: "80%" | "100%" | "turned";
  /** The quota's unit. */
  readonly unit: QuotaUnit;
  /** The quota's period. */
  readonly period: QuotaPeriod;
  /** The tenant whose quota it is; `undefined` for the limiter's own. */
  readonly tenant: string | undefined;
}
