import { systemClock, type Clock } from "./core/clock.js";
import { isLimitKey, LIMIT_KEYS } from "./core/budget.js";
import { DEFAULT_MAX_USAGE } from "./core/usage-cap.js";
import { resolvePriorities, type PriorityClasses } from "./core/priorities.js";
import { notANumber, shown, unknownOption } from "./core/values.js";
import { checkProvider } from "./headers/providers.js";
import type { ProviderName } from "./headers/types.js";
import type { LimiterOptions } from "./options.js";
import type { Limits } from "./core/limits.js";
import type { SharedStore } from "./store/shared-store.js";
import { emitWarning } from "./core/warnings.js";
import { resolveBudgets, type BudgetConfig } from "./core/quota-config.js";

/** Limiter options with defaults applied and everything but the budgets validated. */
export interface ResolvedOptions {
  readonly limits: Limits;
  readonly initialFraction: number;
  readonly arrivalDelayMs: number;
  readonly maxQueue: number;
  readonly maxWaitMs: number;
  readonly clock: Clock;
  readonly onWarning: (warning: Error) => void;
  readonly provider: ProviderName | undefined;
  readonly store: SharedStore | undefined;
  readonly classes: PriorityClasses;
  readonly driftMargin: number;
  readonly maxUsage: number;
  /** Calendar quotas and held budgets; `undefined` when none is set. */
  readonly budgets: BudgetConfig | undefined;
}

const OTHER_KEYS: readonly string[] = [
  "initial",
  "arrivalDelayMs",
  "maxQueue",
  "maxWaitMs",
  "clock",
  "onWarning",
  "provider",
  "store",
  "priorities",
  "defaultPriority",
  "headroom",
  "driftMargin",
  "maxUsage",
  "prices",
  "quotas",
  "tenantQuotas",
  "timeZone",
  "held",
  "onQuota",
];
const OPTION_KEYS: readonly string[] = [...LIMIT_KEYS, ...OTHER_KEYS];

/** Calls reach the provider within this long of admission unless told otherwise (connections, TLS, proxies). */
export const DEFAULT_ARRIVAL_DELAY_MS = 500;
/**
 * The longest `arrivalDelayMs`: a call takes seconds to reach the provider, not minutes, and each draw holds
 * its bucket's cap down for this long (a huge one would stop refill for good).
 */
export const MAX_ARRIVAL_DELAY_MS = 60_000;
/** Headers further than this share of the limit from the own count are a `drift` event. */
const DEFAULT_DRIFT_MARGIN = 0.1;

function initialFraction(initial: LimiterOptions["initial"]): number {
  if (initial === undefined || initial === "full") return 1;
  if (initial === "empty") return 0;
  const expected = `initial must be "full", "empty" or a number in [0, 1], got ${shown(initial)}`;
  if (typeof initial !== "number") throw new TypeError(expected);
  if (initial >= 0 && initial <= 1) return initial;
  throw new RangeError(expected);
}

/** Throws unless `value` is a wait limit: a number >= 0 (`Infinity` for none). */
export function checkMaxWaitMs(value: unknown): void {
  if (typeof value !== "number") throw notANumber("maxWaitMs", value);
  if (!(value >= 0)) throw new RangeError(`maxWaitMs must be a number >= 0, got ${value}`);
}

/** Validates the options that are not budgets; budgets are checked by `buildBudget`. */
/**
 * The options as the package itself may give them: `store` any store of the limiter's protocol (a group
 * member's; a test's in-process one), where a user passes a `RedisStore`.
 * @internal
 */
export interface InternalOptions extends Omit<LimiterOptions, "store"> {
  readonly store?: SharedStore;
}

export function resolveOptions(options: InternalOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`Limiter options must be an object, got ${shown(options)}`);
  }
  const limits: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (isLimitKey(key)) {
      if (value !== undefined) limits[key] = value;
    } else if (!OTHER_KEYS.includes(key)) {
      throw unknownOption("new Limiter()", key, OPTION_KEYS);
    }
  }
  const {
    arrivalDelayMs = DEFAULT_ARRIVAL_DELAY_MS,
    maxQueue = Infinity,
    maxWaitMs = Infinity,
    clock = systemClock,
    onWarning = emitWarning,
    driftMargin = DEFAULT_DRIFT_MARGIN,
    maxUsage = DEFAULT_MAX_USAGE,
  } = options;
  if (typeof maxQueue !== "number") throw notANumber("maxQueue", maxQueue);
  if (Number.isNaN(maxQueue) || maxQueue < 0 || (maxQueue !== Infinity && !Number.isInteger(maxQueue))) {
    throw new RangeError(`maxQueue must be an integer >= 0 or Infinity, got ${String(maxQueue)}`);
  }
  if (typeof arrivalDelayMs !== "number") throw notANumber("arrivalDelayMs", arrivalDelayMs);
  if (!(arrivalDelayMs >= 0 && arrivalDelayMs <= MAX_ARRIVAL_DELAY_MS))
    throw new RangeError(
      `arrivalDelayMs must be a number in [0, ${MAX_ARRIVAL_DELAY_MS}] (a minute), got ${arrivalDelayMs}`,
    );
  checkMaxWaitMs(maxWaitMs);
  if (typeof driftMargin !== "number") throw notANumber("driftMargin", driftMargin);
  if (!(driftMargin >= 0 && driftMargin < Infinity))
    throw new RangeError(`driftMargin must be a finite number >= 0, got ${driftMargin}`);
  if (typeof maxUsage !== "number") throw notANumber("maxUsage", maxUsage);
  if (!(maxUsage >= 1))
    throw new RangeError(`maxUsage must be a number >= 1 (Infinity for no ceiling), got ${maxUsage}`);
  if (typeof clock?.now !== "function" || typeof clock.wallNow !== "function") {
    throw new TypeError("clock must have now() and wallNow() methods");
  }
  if (typeof onWarning !== "function") throw new TypeError("onWarning must be a function");
  const { store } = options;
  if (store !== undefined && (typeof store !== "object" || store === null || typeof store.book !== "function")) {
    throw new TypeError("store must be a shared store, such as RedisStore from llm-limiter/redis");
  }
  const provider = options.provider === undefined ? undefined : checkProvider(options.provider);
  const { budgets, heldRequests } = resolveBudgets(options);
  if (heldRequests !== undefined) {
    if (limits.concurrency !== undefined && limits.concurrency !== heldRequests) {
      throw new TypeError(
        `held.requests is concurrency's other name: set one of them (got ${heldRequests} and ${shown(limits.concurrency)})`,
      );
    }
    limits.concurrency = heldRequests;
  }
  if (store !== undefined && budgets !== undefined) {
    throw new TypeError(
      "quotas are in-memory only in this version: quotas, tenantQuotas and held budgets cannot be kept in a shared " +
        "store yet, and per process they would let every replica spend the whole budget",
    );
  }
  return {
    limits: limits as Limits,
    initialFraction: initialFraction(options.initial),
    arrivalDelayMs,
    maxQueue,
    maxWaitMs,
    clock,
    onWarning,
    provider,
    store,
    classes: resolvePriorities(options.priorities, options.defaultPriority, options.headroom),
    driftMargin,
    maxUsage,
    budgets,
  };
}
