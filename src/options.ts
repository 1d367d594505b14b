import type { Clock } from "./core/clock.js";
import type { ProviderName } from "./headers/types.js";
import type { RetryOptions } from "./core/retry.js";
import type { RedisStore } from "./redis/store.js";
import type { Limits, Usage } from "./core/limits.js";
import type { Prices, Quotas } from "./core/quota-types.js";

/**
 * Options of a {@link Limiter}: the budgets of {@link Limits}, and how admission behaves.
 *
 * @example
 * ```ts
 * import { Limiter } from "llm-limiter";
 *
 * const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai", maxWaitMs: 60_000 });
 * ```
 */
export interface LimiterOptions extends Limits {
  /**
   * How full the buckets are at start: `"full"` (a fresh key), `"empty"` (safe after a
   * restart, when the key may have just been used) or a fraction between 0 and 1. A given
   * value is taken as said, so a full bucket's whole burst may go at once. Left out, the
   * buckets start full, but an in-memory limiter probes first: it sends 4 calls, then admits
   * only what refills until the first response or finished call (5 s at most), since a new
   * process cannot tell a fresh key from one its predecessor just drained.
   * @default `undefined`: full, behind the start-up probe
   */
  initial?: "full" | "empty" | number;
  /**
   * The longest time, in ms, from admission until a call reaches the provider
   * (connections opening, TLS, proxies, a busy event loop). Calls admitted
   * together arrive spread over it, and until the last of a burst arrives the
   * provider's bucket may sit full, losing refill; so just after a full bucket
   * the limiter refills no faster than the slowest arrival allows. It costs
   * nothing at a sustained rate. Header sync takes the calls admitted within
   * it off a response's remaining, which may not have counted them yet. While
   * the event loop lags (the limiter's timers fire late), the allowance widens
   * by the recent lateness, and the calls on their way when the loop stalled
   * count as arriving that much later; the widening halves every 10 s and
   * `snapshot().arrivalAllowanceMs` shows it (with a shared store the
   * allowance stays as set). Raise it for slow networks; `0` trusts every
   * call to arrive at once, lag or not. At most `60000` (a minute): more is a
   * `RangeError`.
   * @default 500
   */
  arrivalDelayMs?: number;
  /**
   * Most requests that may wait at once; more are rejected with `QueueFullError`.
   * @default Infinity
   */
  maxQueue?: number;
  /**
   * Longest time a request may wait for admission unless its call says
   * otherwise; then `WaitTimeoutError`, at once when the wait is known to be
   * longer (a spent daily budget says when it returns). Retries inside `run`
   * are not bound by it.
   * @default Infinity
   */
  maxWaitMs?: number;
  /**
   * Time source: monotonic `now()` for refill and timers, `wallNow()` for the absolute resets
   * some providers send. Inject one for tests.
   * @default `performance.now()` and `Date.now()`, read at call time
   */
  clock?: Clock;
  /**
   * Receives non-fatal problems: a malformed `used`, a shared store's outage, a refused
   * write-through.
   * @default `process.emitWarning`; `console.warn` where there is no `process` (Workers, the Edge runtime)
   */
  onWarning?: (warning: Error) => void;
  /**
   * How far a response's remaining may stray from the limiter's own count, as a share of the
   * dimension's limit, before a `drift` event tells of it (0.1: 10% of `tpm`). The remaining is
   * brought forward to now and less what was admitted since, so one client alone on its key stays
   * well inside it; another client on the key, estimates far from the provider's count, or a wrong
   * limit do not. Reported with the buckets in this process only (a shared store discounts every
   * replica's draws itself).
   * @default 0.1
   */
  driftMargin?: number;
  /**
   * The most one call's settle charges on a dimension, in tokens. A reported usage is taken
   * in whole units (a fraction rounded up) and believed up to the larger of 16 times the
   * call's estimate on that dimension and the dimension's capacity, and never beyond this
   * ceiling: a usage past either is charged at the bound, with a warning through
   * `onWarning` (a proxy's or SDK's absurd usage would otherwise be debt that locks the
   * budget for good). Must be at least 1; `Infinity` leaves only the estimate's bound.
   * @default 10000000
   */
  maxUsage?: number;
  /**
   * Whose header dialect `sync` reads; an unknown name throws `TypeError`.
   * @default `undefined`: detected from each response's header names
   */
  provider?: ProviderName;
  /**
   * Keep bucket state in a store shared by every replica (`RedisStore` from
   * `llm-limiter/redis`) instead of this process. The limiter's protocol with its store is internal:
   * a store of your own is not supported.
   * @default `undefined`: in this process's memory
   * @example
   * ```ts
   * import { Redis } from "ioredis";
   * import { Limiter } from "llm-limiter";
   * import { RedisStore } from "llm-limiter/redis";
   *
   * const store = new RedisStore({ client: new Redis(), key: "openai:proj-a:gpt-4o" });
   * const limiter = new Limiter({ rpm: 500, tpm: 200_000, store });
   * ```
   */
  store?: RedisStore;
  /**
   * Priority classes, the most urgent first. A call names its class with
   * `priority`; a waiter of a class is admitted before every waiter of the
   * classes after it (strictly), and a call of a class goes at once when its
   * buckets have room and nothing of its class or a more urgent one waits.
   * Duplicates and empty names throw `TypeError`. See docs/priorities.md.
   * @default `["default"]`: one class
   * @example
   * ```ts
   * import { Limiter } from "llm-limiter";
   *
   * const limiter = new Limiter({
   *   tpm: 200_000,
   *   priorities: ["interactive", "default", "background"],
   *   headroom: { background: 0.2 },
   * });
   * await limiter.run(800, async () => ({ value: "ok" }), { priority: "interactive", tenant: "acme" });
   * ```
   */
  priorities?: readonly string[];
  /**
   * The class of a call that names no `priority`; one not in `priorities` throws `TypeError`.
   * @default `"default"` when `priorities` has it, else the last class
   */
  defaultPriority?: string;
  /**
   * Per class, the fraction of every bucket's capacity it never takes: with
   * `{ background: 0.2 }`, a background call is admitted only if every
   * dimension keeps at least 20% of its capacity after it, so more urgent calls
   * find that room at once. The reserve is a level, not a share of the rate:
   * alone, the class is still admitted at the whole refill rate (it waits at the
   * reserve, taking what refills above it), and gives up only the last part of
   * the burst. A call of the class costing more than the rest of a capacity is
   * refused at once (`RequestTooLargeError`). Fractions in [0, 1), classes of
   * `priorities`; else `TypeError` or `RangeError`. With a shared store the
   * reserve is kept by this process's own view of the levels (docs/redis.md).
   * @default `{}`: no class keeps off any part
   */
  headroom?: Readonly<Record<string, number>>;
  /**
   * USD per million tokens, for the `usd` quotas: a call's estimate is priced and held at admission, then settled
   * to its usage's price (cache reads at `cachedInput`, writes at `cacheWrite`; a plain-number usage at `input`,
   * a plain-number estimate at the highest price). Kept in whole nano-dollars. See docs/budgets.md.
   * @default `undefined`: no price, so no `usd` quota
   */
  prices?: Prices;
  /**
   * The limiter's calendar quotas: per unit (`usd`, `tokens`, `input`, `output`, `requests`), a limit per
   * `hour`, `day`, `week` (ISO, from Monday) or `month`, each a fixed window of the calendar in `timeZone`. A
   * call is charged its estimate at admission and settled to its usage; one that a period cannot hold (what was
   * used, holds of calls in flight aside, plus the call, over the limit) is refused with `QuotaExceededError`,
   * or waits for the next period with `onQuota: "wait"`; one that fits once calls in flight settle waits for
   * them, FIFO, under `maxWaitMs`. In this process's memory only, for the limiter's life: with a `store` they
   * are a `TypeError`. See docs/budgets.md.
   * @default `undefined`: no calendar quota
   * @example
   * ```ts
   * import { Limiter } from "llm-limiter";
   *
   * const limiter = new Limiter({
   *   tpm: 200_000,
   *   prices: { input: 2.5, output: 10, cachedInput: 1.25 },
   *   quotas: { usd: { day: 50, month: 1_000 }, tokens: { day: 5_000_000 } },
   *   timeZone: "Europe/Berlin",
   * });
   * const today = (await limiter.quota()).usd?.day; // { limit, used, reserved, remaining, resetsAt }
   * ```
   */
  quotas?: Quotas;
  /**
   * Each tenant's own calendar quotas (the same shape as `quotas`), charged besides the limiter's on every call
   * that names its `tenant`; or a function that gives a tenant's (called once per tenant and period). A tenant's
   * counters are kept only while their period holds something.
   * @default `undefined`: tenants have no quota of their own
   */
  tenantQuotas?: Quotas | ((tenant: string) => Quotas);
  /**
   * The IANA time zone where the quotas' hours, days, weeks and months begin.
   * @default `"UTC"`
   */
  timeZone?: string;
  /**
   * Budgets held for the life of a call: taken at admission, given back at `release()`, like `concurrency`
   * (`requests` is `concurrency`'s other name). `tokens` caps the tokens of the calls in flight at once, as the
   * Batch API caps the tokens enqueued; a waiter queues for them FIFO.
   * @default `undefined`: nothing held beyond `concurrency`
   */
  held?: Readonly<Partial<Record<"tokens" | "input" | "output" | "requests", number>>>;
  /**
   * What a call that its quota's period cannot hold does: `"reject"` at once with `QuotaExceededError`, or
   * `"wait"` for the period to turn (under `maxWaitMs`: refused at once with `WaitTimeoutError` when the turn is
   * further away). A call can set its own.
   * @default `"reject"`
   */
  onQuota?: "reject" | "wait";
}

/** How to read one response in `sync`. */
export interface SyncOptions {
  /**
   * Whose header dialect to read.
   * @default the limiter's `provider`, else detected from the header names
   */
  provider?: ProviderName;
  /** The response's HTTP status: a 429 pauses admission for its retry hint (see docs/header-sync.md). */
  status?: number;
  /** The response body (parsed JSON or text), for the 429's retry hint and limit type. */
  body?: unknown;
}

/** Options for one admission. */
export interface AcquireOptions {
  /** Aborting it removes the request from the queue at once and rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Longest time to wait for admission, in ms; then `WaitTimeoutError`.
   * @default the limiter's `maxWaitMs`
   */
  maxWaitMs?: number;
  /**
   * The call's priority class, one of the limiter's `priorities`; another name throws `TypeError`.
   * @default the limiter's `defaultPriority`
   */
  priority?: string;
  /**
   * Whom the call is for (a customer, a user, a job). Within a priority class,
   * tenants share admission by cost (the refill time of the dimension a call
   * loads most), FIFO within one tenant: one tenant's burst does not make
   * another's call wait behind all of it. Calls without a tenant share as one
   * more tenant. A tenant is remembered only while it has calls waiting, or was
   * served more than its share lately.
   * @default `undefined`: the calls without a tenant
   */
  tenant?: string;
  /**
   * What this call does when its quota's period cannot hold it: `"reject"` or `"wait"` for the next period.
   * @default the limiter's `onQuota`
   */
  onQuota?: "reject" | "wait";
}

/** Options for {@link Limiter.run}. */
export interface RunOptions extends AcquireOptions {
  /**
   * Give the reservation back when `fn` throws. Off by default: providers count failed
   * calls, so the charge stands.
   * @default false
   */
  refundOnError?: boolean;
  /**
   * Retry calls the provider rejected with 429 (`fn` threw an error with
   * `status === 429`, as the official SDKs' errors do): after syncing its
   * headers, wait its retry hint (or a jittered exponential backoff) and try
   * again at the head of the queue. Billing 429s (`insufficient_quota`) and
   * `x-should-retry: false` are never retried. Set the SDK client's
   * `maxRetries: 0` when the limiter owns retries.
   * @default `undefined`: no retries
   * @example
   * ```ts
   * import { Limiter } from "llm-limiter";
   *
   * declare const limiter: Limiter;
   * declare function complete(signal: AbortSignal): Promise<{ text: string; tokens: number }>;
   *
   * const text = await limiter.run(
   *   1_000,
   *   async (reservation) => {
   *     const answer = await complete(reservation.signal);
   *     return { value: answer.text, used: answer.tokens };
   *   },
   *   { retry: { attempts: 3 } },
   * );
   * ```
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
