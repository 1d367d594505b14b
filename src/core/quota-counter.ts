import { NANO_PER_USD } from "./prices.js";
import type { QuotaSpec } from "./quota-config.js";
import type { QuotaState } from "./quota-types.js";

/** One quota's count in its current calendar period (wall-clock epoch ms; nano-dollars for `usd`). */
export interface Counter {
  readonly spec: QuotaSpec;
  /** What released calls admitted in this period cost. */
  used: number;
  /** What calls admitted in this period and not yet released hold. */
  reserved: number;
  startedAt: number;
  resetsAt: number;
  /** The share of the limit last told by an event this period: 0, 0.8 or 1. */
  told: number;
}

/** Whether the counter holds anything this period. */
export function holdsAny(counter: Counter): boolean {
  return counter.used !== 0 || counter.reserved !== 0;
}

/** The counter as `quota()` reports it: dollars for `usd`, `remaining` never below 0. */
export function stateOf(counter: Counter): QuotaState {
  const scale = counter.spec.unit === "usd" ? NANO_PER_USD : 1;
  const { limit } = counter.spec;
  const { used, reserved, resetsAt } = counter;
  const remaining = Math.max(0, limit - used - reserved);
  return {
    limit: limit / scale,
    used: used / scale,
    reserved: reserved / scale,
    remaining: remaining / scale,
    resetsAt,
  };
}
