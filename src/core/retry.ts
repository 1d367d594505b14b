import { notANumber } from "./values.js";

/**
 * How `run` retries a call that the provider rejected with 429. A retry waits for the
 * 429's retry hint; without one, for a jittered backoff: a uniform draw below
 * `min(maxMs, baseMs * 2^n)` for retry n (0 for the first).
 */
export interface RetryOptions {
  /** Retries after the first attempt (0: none). */
  attempts: number;
  /**
   * First backoff step when the provider gives no hint, in ms (as the official SDKs).
   * @default 500
   */
  baseMs?: number;
  /**
   * Longest backoff step, in ms (as the official SDKs).
   * @default 8000
   */
  maxMs?: number;
}

/** Retry options with defaults applied and checked. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Validates `retry` options; `undefined` means no retries. Throws TypeError/RangeError. */
export function retryPolicy(options: RetryOptions | undefined): RetryPolicy | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null)
    throw new TypeError("retry must be { attempts, baseMs?, maxMs? }");
  const { attempts, baseMs = 500, maxMs = 8000 } = options;
  if (typeof attempts !== "number") throw notANumber("retry.attempts", attempts);
  if (!Number.isInteger(attempts) || attempts < 0)
    throw new RangeError(`retry.attempts must be an integer >= 0, got ${attempts}`);
  for (const [name, value] of [
    ["baseMs", baseMs],
    ["maxMs", maxMs],
  ] as const) {
    if (typeof value !== "number") throw notANumber(`retry.${name}`, value);
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`retry.${name} must be a finite number >= 0, got ${value}`);
  }
  return { attempts, baseMs, maxMs };
}

/**
 * Exponential backoff with full jitter for retry `attempt` (0-based): a
 * uniform draw below `min(maxMs, baseMs * 2^attempt)`, so clients that failed
 * together do not retry together.
 */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  return random() * Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
}
