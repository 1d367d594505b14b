import { MAX_LIMIT } from "./budget.js";
import { periodStart, type CalendarPeriod } from "./calendar.js";
import { NANO_PER_USD, resolvePrices, type NanoPrices } from "./prices.js";
import type { QuotaUnit, Quotas } from "./quota-types.js";
import { plainObject, positiveAtMost, shown, unknownOption } from "./values.js";

/** The units in the order counters keep their charges (see `QuotaHold`). */
export const QUOTA_UNITS: readonly QuotaUnit[] = ["usd", "tokens", "input", "output", "requests"];
const PERIODS: readonly CalendarPeriod[] = ["hour", "day", "week", "month"];
const HELD_KEYS: readonly string[] = ["tokens", "input", "output", "requests"];
/** The largest dollar limit: 9e6 USD is 9e15 nano-dollars, still below 2^53, where integers stay exact. */
const MAX_USD = 9e6;

/** One configured quota: a limit per calendar period on one unit (nano-dollars for `usd`). */
export interface QuotaSpec {
  readonly unit: QuotaUnit;
  /** Its index in {@link QUOTA_UNITS}. */
  readonly index: number;
  readonly period: CalendarPeriod;
  readonly limit: number;
}

/** A held budget: units taken at admission and given back at release. */
export interface HeldSpec {
  readonly unit: "tokens" | "input" | "output";
  readonly limit: number;
}

/** The budgets a business sets, checked. */
export interface BudgetConfig {
  readonly prices: NanoPrices | undefined;
  readonly quotas: readonly QuotaSpec[];
  /** Each tenant's quotas: the same for all, or read from the caller's function per tenant (checked then). */
  readonly tenantQuotas: readonly QuotaSpec[] | ((tenant: string) => Quotas) | undefined;
  readonly timeZone: string;
  readonly held: readonly HeldSpec[];
  /** What a call that its period cannot hold does unless it says otherwise. */
  readonly onQuota: "reject" | "wait";
}

/** The options {@link resolveBudgets} reads. */
export interface BudgetOptions {
  readonly prices?: unknown;
  readonly quotas?: unknown;
  readonly tenantQuotas?: unknown;
  readonly timeZone?: unknown;
  readonly held?: unknown;
  readonly onQuota?: unknown;
}

/** Throws TypeError unless `value` is `"reject"`, `"wait"` or `undefined`. */
export function checkOnQuota(value: unknown): "reject" | "wait" | undefined {
  if (value === undefined || value === "reject" || value === "wait") return value;
  throw new TypeError(`onQuota must be "reject" or "wait", got ${shown(value)}`);
}

/** Checks quotas (`what` names them in messages) against the units and periods; dollars need `prices`. */
export function resolveQuotas(what: string, quotas: unknown, priced: boolean): QuotaSpec[] {
  const specs: QuotaSpec[] = [];
  for (const [unit, periods] of Object.entries(plainObject(what, quotas))) {
    const index = QUOTA_UNITS.indexOf(unit as QuotaUnit);
    if (index < 0) throw unknownOption(what, unit, QUOTA_UNITS);
    if (unit === "usd" && !priced) throw new TypeError(`${what}.usd needs prices: USD per million tokens`);
    if (periods === undefined) continue;
    for (const [period, limit] of Object.entries(plainObject(`${what}.${unit}`, periods))) {
      if (!PERIODS.includes(period as CalendarPeriod)) throw unknownOption(`${what}.${unit}`, period, PERIODS);
      if (limit === undefined) continue;
      const name = `${what}.${unit}.${period}`;
      const value = positiveAtMost(name, limit, unit === "usd" ? MAX_USD : MAX_LIMIT);
      specs.push({
        unit: unit as QuotaUnit,
        index,
        period: period as CalendarPeriod,
        limit: unit === "usd" ? Math.floor(value * NANO_PER_USD) : value,
      });
    }
  }
  return specs;
}

/** Checks `held` (its `requests` is `concurrency`'s other name, returned apart). */
function resolveHeld(held: unknown): { held: HeldSpec[]; requests: number | undefined } {
  if (held === undefined) return { held: [], requests: undefined };
  const specs: HeldSpec[] = [];
  let requests: number | undefined;
  for (const [unit, limit] of Object.entries(plainObject("held", held))) {
    if (!HELD_KEYS.includes(unit)) throw unknownOption("held", unit, HELD_KEYS);
    if (limit === undefined) continue;
    const value = positiveAtMost(`held.${unit}`, limit, MAX_LIMIT);
    if (unit === "requests") requests = value;
    else specs.push({ unit: unit as HeldSpec["unit"], limit: value });
  }
  return { held: specs, requests };
}

/**
 * Checks the budget options; `undefined` when none is set (the limiter then pays nothing for them). `heldRequests`
 * is `held.requests`, which the caller takes as `concurrency`.
 */
export function resolveBudgets(options: BudgetOptions): {
  budgets: BudgetConfig | undefined;
  heldRequests: number | undefined;
} {
  const { held, requests } = resolveHeld(options.held);
  const onQuota = checkOnQuota(options.onQuota) ?? "reject";
  const timeZone = options.timeZone ?? "UTC";
  if (typeof timeZone !== "string")
    throw new TypeError(`timeZone must be an IANA time zone name, got ${shown(timeZone)}`);
  periodStart(0, "day", timeZone); // a TypeError for a zone Intl does not know
  const prices = options.prices === undefined ? undefined : resolvePrices(options.prices);
  const quotas = options.quotas === undefined ? [] : resolveQuotas("quotas", options.quotas, prices !== undefined);
  const given = options.tenantQuotas;
  let tenantQuotas: BudgetConfig["tenantQuotas"];
  if (typeof given === "function") tenantQuotas = given as (tenant: string) => Quotas;
  else if (given !== undefined) tenantQuotas = resolveQuotas("tenantQuotas", given, prices !== undefined);
  const noTenantQuotas =
    tenantQuotas === undefined || (typeof tenantQuotas !== "function" && tenantQuotas.length === 0);
  const none = quotas.length === 0 && held.length === 0 && noTenantQuotas;
  if (none) return { budgets: undefined, heldRequests: requests };
  return { budgets: { prices, quotas, tenantQuotas, timeZone, held, onQuota }, heldRequests: requests };
}
