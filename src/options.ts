import type { Clock } from "./core/clock.js";
import type { ProviderName } from "./headers/types.js";
import type { RetryOptions } from "./core/retry.js";
import type { SharedStore } from "./store/shared-store.js";
import type { Limits, Usage } from "./core/limits.js";

/** Options of a {@link Limiter}. */
export interface LimiterOptions extends Limits {
  /**
   * How full the buckets are at start: `"full"` (default: a fresh key),
   * `"empty"` (safe after a restart, when the key may have just been used) or a
   * fraction between 0 and 1.
   */
  initial?: "full" | "empty" | number;
  /**
   * The longest time, in ms, from admission until a call reaches the provider
   * (connections opening, TLS, proxies, a busy event loop). Calls admitted
   * together arrive spread over it, and until the last of a burst arrives the
   * provider's bucket may sit full, losing refill; so just after a full bucket
   * the limiter refills no faster than the slowest arrival allows. It costs
   * nothing at a sustained rate. Raise it for slow networks; `0` trusts every
   * call to arrive at once.
   * @default 500
   */
  arrivalDelayMs?: number;
  /** Most requests that may wait at once; more are rejected with `QueueFullError`. Default `Infinity`. */
  maxQueue?: number;
  /**
   * Longest time a request may wait for admission unless its call says
   * otherwise; then `WaitTimeoutError`, at once when the wait is known to be
   * longer (a spent daily budget says when it returns). Retries inside `run`
   * are not bound by it.
   * @default Infinity
   */
  maxWaitMs?: number;
  /** Time source; default `performance.now()` and `Date.now()`. Inject one for tests. */
  clock?: Clock;
  /** Receives non-fatal problems (a malformed `used`, …). Default `process.emitWarning`. */
  onWarning?: (warning: Error) => void;
  /** Whose header dialect `sync` reads. Default: detected from the header names. */
  provider?: ProviderName;
  /**
   * Keep bucket state in a store shared by every replica (`RedisStore` from
   * `llm-limiter/redis`) instead of this process. Default: in memory.
   */
  store?: SharedStore;
}

/** How to read one response in `sync`. */
export interface SyncOptions {
  /** Whose header dialect to read; default the limiter's `provider`, else detected. */
  provider?: ProviderName;
  /** The response's HTTP status: 429 pauses admission (see the README's retry section). */
  status?: number;
  /** The response body (parsed JSON or text), for the 429's retry hint and limit type. */
  body?: unknown;
}

/** Options for one admission. */
export interface AcquireOptions {
  /** Aborting it removes the request from the queue at once and rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Longest time to wait for admission; then `WaitTimeoutError`. Default: the limiter's `maxWaitMs`. */
  maxWaitMs?: number;
}

/** Options for {@link Limiter.run}. */
export interface RunOptions extends AcquireOptions {
  /**
   * Give the reservation back when `fn` throws. Default `false`: providers count
   * failed calls, so the charge stands.
   */
  refundOnError?: boolean;
  /**
   * Retry calls the provider rejected with 429 (`fn` threw an error with
   * `status === 429`, as the official SDKs' errors do): after syncing its
   * headers, wait its retry hint (or a jittered exponential backoff) and try
   * again at the head of the queue. Billing 429s (`insufficient_quota`) and
   * `x-should-retry: false` are never retried. Default: no retries. Set the
   * SDK client's `maxRetries: 0` when the limiter owns retries.
   */
  retry?: RetryOptions;
}

/** What `fn` in {@link Limiter.run} resolves to. */
export interface RunResult<T> {
  /** Returned to the caller of `run`. */
  value: T;
  /** Actual usage; omitted: the estimate stands. */
  used?: Usage;
}
