import type { Channels } from "../events/hub.js";
import { costOf } from "./amounts.js";
import type { Clock } from "./clock.js";
import { MAX_TIMEOUT_MS } from "./clock.js";
import { QuotaExceededError, RequestTooLargeError } from "./errors.js";
import type { Estimate, Usage } from "./limits.js";
import { nanoCost } from "./prices.js";
import { QUOTA_UNITS, resolveQuotas, type BudgetConfig, type QuotaSpec } from "./quota-config.js";
import { nextBoundary, periodStart } from "./calendar.js";
import { holdsAny, stateOf, type Counter } from "./quota-counter.js";
import type { QuotaEvent, QuotaReport } from "./quota-types.js";

/** A call fits every quota and held budget now. */
export const FITS = 0;
/** It fits once holds of calls in flight settle or are released: it waits (FIFO) for them. */
export const HOLDS = 1;
/** The period cannot hold it whatever settles: refused, or (`onQuota: "wait"`) waits for the period to turn. */
export const SPENT = 2;
/** It can never fit (larger than a whole limit), or the tenant's quotas could not be read: refused. */
export const NEVER = 3;

/** The wall-clock instants the calendar takes (years 1 to 9999, as src/core/calendar.ts bounds them). */
const FIRST_WALL_MS = -62_135_596_800_000 + 2 * 86_400_000;
const LAST_WALL_MS = 253_402_300_799_999 - 31 * 86_400_000;

/** One scope's counters: the limiter's own, or one tenant's. */
interface Scope {
  readonly tenant: string | undefined;
  readonly counters: Counter[];
}

/**
 * What one admitted call holds on the quotas: its charge per unit (in {@link QUOTA_UNITS} order, reserved until
 * release), and on each held budget. Made only by a limiter with budgets: one object per admission.
 */
export class QuotaHold {
  c0 = 0;
  c1 = 0;
  c2 = 0;
  c3 = 0;
  c4 = 0;
  h0 = 0;
  h1 = 0;
  h2 = 0;

  constructor(
    readonly quotas: Quotas,
    /** The tenant's scope, if the call named a tenant with quotas. */
    readonly scope: Scope | undefined,
    /** Wall-clock epoch ms of admission: the periods it was charged in are those that held it. */
    readonly wall: number,
  ) {}

  charge(i: number): number {
    return i === 0 ? this.c0 : i === 1 ? this.c1 : i === 2 ? this.c2 : i === 3 ? this.c3 : this.c4;
  }

  setCharge(i: number, value: number): void {
    if (i === 0) this.c0 = value;
    else if (i === 1) this.c1 = value;
    else if (i === 2) this.c2 = value;
    else if (i === 3) this.c3 = value;
    else this.c4 = value;
  }

  held(i: number): number {
    return i === 0 ? this.h0 : i === 1 ? this.h1 : this.h2;
  }

  /** Moves the charges to what `used` costs; returns whether any went down (room for waiters). */
  settle(used: Usage): boolean {
    return this.quotas.recharge(this, used, false);
  }

  /** A refund: every charge back, the request's too. */
  refund(): boolean {
    return this.quotas.recharge(this, undefined, true);
  }

  /** An error response without usage: the provider bills nothing, so money and tokens go back (the request stays). */
  unbilled(): boolean {
    return this.quotas.recharge(this, undefined, false);
  }

  /** The call ended: its charges become used in their periods, its held budgets are free again. */
  release(): void {
    this.quotas.release(this);
  }
}

/**
 * Calendar quotas (the limiter's and each tenant's) and held budgets, in this process. Admission asks
 * {@link verdict} and, when the rate buckets take the call too, {@link take}, in one synchronous step: a call
 * is admitted on all or none. Periods turn by the wall clock (never backwards: a clock set back holds the
 * last instant seen), at the boundaries of `timeZone`; one unref'd timer turns them on time, tells the
 * events, forgets tenants whose periods hold nothing, and lets waiters for the new period in.
 */
export class Quotas {
  private readonly own: Scope;
  private readonly tenants = new Map<string, Scope>();
  private readonly heldInUse: number[];
  /** Scratch of the last verdict: the estimate's cost per unit, per held budget, and the tenant's scope. */
  private readonly cost = [0, 0, 0, 0, 0];
  private readonly heldCost: number[];
  private scope: Scope | undefined;
  /** What bound the last verdict that did not fit (a counter, or a held budget's index), and whose it was. */
  private binding: Counter | number | undefined;
  private bindingTenant: string | undefined;
  /** Why the last verdict was {@link NEVER} when a tenant's quotas could not be read. */
  private failure: Error | undefined;
  private lastWall = Number.NEGATIVE_INFINITY;
  /** The last period looked up per period name: a new tenant's counters start in it without asking `Intl`. */
  private readonly periods = new Map<string, { startedAt: number; resetsAt: number }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private due = Infinity;
  private shut = false;

  constructor(
    private readonly config: BudgetConfig,
    private readonly clock: Clock,
    private readonly events: Channels,
    /** The limiter's `maxUsage`: the most one usage count is believed. */
    private readonly maxUsage: number,
    /** A period turned: waiters for it may be admitted. */
    private readonly turned: () => void,
  ) {
    const wall = this.wall();
    if (!(wall >= FIRST_WALL_MS)) throw new TypeError("clock.wallNow() must give epoch ms between years 1 and 9999");
    this.own = { tenant: undefined, counters: config.quotas.map((spec) => this.counter(spec, wall)) };
    this.heldInUse = config.held.map(() => 0);
    this.heldCost = config.held.map(() => 0);
    this.arm();
  }

  /**
   * The wall clock, never going back; a reading that is not a number of the calendar's years (NaN, past year
   * 9999) is passed over, so a clock gone wrong stops periods turning rather than throwing out of admission.
   */
  wall(): number {
    const now = this.clock.wallNow();
    if (now > this.lastWall && now <= LAST_WALL_MS) this.lastWall = now;
    return this.lastWall;
  }

  /** Tenants whose counters are kept (for tests of what is left behind). */
  get tenantCount(): number {
    return this.tenants.size;
  }

  /**
   * Whether `estimate` of `tenant` fits now: {@link FITS}, {@link HOLDS}, {@link SPENT} or {@link NEVER}. Keeps its
   * costs for {@link take} and what binds for {@link refusal} and {@link waitMs}.
   */
  verdict(estimate: Estimate, tenant: string | undefined): number {
    const wall = this.wall();
    const { cost, heldCost, config } = this;
    const prices = config.prices;
    cost[0] = prices === undefined ? 0 : nanoCost(estimate, prices, prices.most, Infinity);
    for (let i = 1; i < 5; i++) cost[i] = Math.ceil(costOf(QUOTA_UNITS[i] as "tokens", estimate));
    this.binding = undefined;
    this.failure = undefined;
    let worst = this.check(this.own, wall, FITS);
    if (worst === NEVER) return worst;
    const scope = tenant === undefined || config.tenantQuotas === undefined ? undefined : this.tenantScope(tenant);
    if (scope === null) return NEVER;
    this.scope = scope;
    if (scope) worst = this.check(scope, wall, worst);
    if (worst === NEVER) return worst;
    const held = config.held;
    for (let i = 0; i < held.length; i++) {
      const spec = held[i]!;
      const c = (heldCost[i] = Math.ceil(costOf(spec.unit, estimate)));
      if (c > spec.limit) return this.bound(i, undefined, NEVER);
      if (c > 0 && this.heldInUse[i]! + c > spec.limit && worst === FITS) worst = this.bound(i, undefined, HOLDS);
    }
    return worst;
  }

  /** Takes what the last {@link verdict} (which said {@link FITS}) costs: the hold the call keeps until release. */
  take(): QuotaHold {
    const hold = new QuotaHold(this, this.scope, this.lastWall);
    const { cost } = this;
    for (let i = 0; i < 5; i++) hold.setCharge(i, cost[i]!);
    this.add(this.own, hold, cost);
    if (hold.scope) this.add(hold.scope, hold, cost);
    const { heldCost, heldInUse } = this;
    for (let i = 0; i < heldCost.length; i++) heldInUse[i]! += heldCost[i]!;
    hold.h0 = heldCost[0] ?? 0;
    hold.h1 = heldCost[1] ?? 0;
    hold.h2 = heldCost[2] ?? 0;
    return hold;
  }

  /** The error that refuses the call the last verdict did not admit ({@link SPENT} or {@link NEVER}). */
  refusal(): Error {
    if (this.failure) return this.failure;
    const binding = this.binding;
    if (typeof binding === "number") {
      const spec = this.config.held[binding]!;
      return new RequestTooLargeError(`held.${spec.unit}`, this.heldCost[binding]!, spec.limit);
    }
    const counter = binding!;
    const { spec } = counter;
    const state = stateOf(counter);
    return new QuotaExceededError(
      spec.unit,
      spec.period,
      this.bindingTenant,
      state.limit,
      state.remaining,
      state.resetsAt,
    );
  }

  /**
   * For the last verdict: the wall-clock ms until its period turns ({@link SPENT}), and the quota's name and
   * period length, for a timeout's message.
   */
  waitMs(): { name: string; waitMs: number; periodMs: number; resetsAt: number } {
    const counter = this.binding as Counter;
    const { unit, period } = counter.spec;
    const name = `quota.${unit}.${period}`;
    return {
      name,
      waitMs: counter.resetsAt - this.lastWall,
      periodMs: counter.resetsAt - counter.startedAt,
      resetsAt: counter.resetsAt,
    };
  }

  /** The name of what the last verdict waits on ({@link HOLDS}), for a timeout's message. */
  holdName(): string {
    const binding = this.binding;
    if (typeof binding === "number") return `held.${this.config.held[binding]!.unit}`;
    return binding ? `quota.${binding.spec.unit}.${binding.spec.period}` : "quota";
  }

  /** Moves `hold`'s charges to what `used` costs (`undefined`: to nothing; `all`: the request's too). */
  recharge(hold: QuotaHold, used: Usage | undefined, all: boolean): boolean {
    const next = this.cost; // scratch: admission reads it only within one synchronous verdict-and-take
    const prices = this.config.prices;
    if (used === undefined) {
      next.fill(0);
      next[4] = all ? 0 : hold.c4;
    } else {
      next[0] = prices === undefined ? 0 : nanoCost(used, prices, prices.input, this.maxUsage);
      for (let i = 1; i < 4; i++)
        next[i] = Math.ceil(Math.min(costOf(QUOTA_UNITS[i] as "tokens", used), this.maxUsage));
      next[4] = hold.c4;
    }
    let lowered = false;
    for (let i = 0; i < 5; i++) {
      const delta = next[i]! - hold.charge(i);
      if (delta < 0) lowered = true;
      next[i] = delta;
    }
    this.add(this.own, hold, next);
    if (hold.scope) this.add(hold.scope, hold, next);
    for (let i = 0; i < 5; i++) hold.setCharge(i, hold.charge(i) + next[i]!);
    return lowered;
  }

  /** `hold`'s call ended: its charges move from reserved to used, in the periods still open that it was charged in. */
  release(hold: QuotaHold): void {
    this.settleInto(this.own, hold);
    if (hold.scope) this.settleInto(hold.scope, hold);
    const inUse = this.heldInUse;
    for (let i = 0; i < inUse.length; i++) inUse[i] = Math.max(0, inUse[i]! - hold.held(i));
  }

  /** The limiter's quotas (`tenant` undefined) or one tenant's, in their current periods. */
  report(tenant: string | undefined): QuotaReport {
    const wall = this.wall();
    let scope: Scope | undefined | null = this.own;
    if (tenant !== undefined) {
      if (this.config.tenantQuotas === undefined) return {};
      // A question leaves nothing behind: a tenant not kept is reported as a fresh period.
      scope = this.tenants.get(tenant) ?? this.freshScope(tenant, wall);
    }
    const report: Record<string, Record<string, unknown>> = {};
    if (!scope) return report;
    for (const counter of scope.counters) {
      this.turnIfDue(counter, wall, scope.tenant);
      (report[counter.spec.unit] ??= {})[counter.spec.period] = stateOf(counter);
    }
    return report as QuotaReport;
  }

  /** The held budgets: each one's limit and what is free now. */
  heldReport(): Record<string, { limit: number; available: number }> | undefined {
    const held = this.config.held;
    if (held.length === 0) return undefined;
    const report: Record<string, { limit: number; available: number }> = {};
    held.forEach((spec, i) => (report[spec.unit] = { limit: spec.limit, available: spec.limit - this.heldInUse[i]! }));
    return report;
  }

  /** Stops the timer: nothing turns in the background any more. */
  close(): void {
    this.shut = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = Infinity;
  }

  /** Checks `scope`'s counters against the scratch costs, turning those whose period ended; the worse verdict. */
  private check(scope: Scope, wall: number, worst: number): number {
    const { cost } = this;
    for (const counter of scope.counters) {
      const c = cost[counter.spec.index]!;
      if (c <= 0) continue;
      this.turnIfDue(counter, wall, scope.tenant);
      const { limit } = counter.spec;
      if (c > limit) return this.bound(counter, scope.tenant, NEVER);
      if (counter.used + c > limit) {
        if (worst < SPENT) worst = this.bound(counter, scope.tenant, SPENT);
      } else if (counter.used + counter.reserved + c > limit && worst === FITS) {
        worst = this.bound(counter, scope.tenant, HOLDS);
      }
    }
    return worst;
  }

  private bound(binding: Counter | number, tenant: string | undefined, verdict: number): number {
    this.binding = binding;
    this.bindingTenant = tenant;
    this.failure = undefined;
    return verdict;
  }

  /** `tenant`'s scope, made on first use; `null` when its quotas (the caller's function) could not be read. */
  private tenantScope(tenant: string): Scope | undefined | null {
    const kept = this.tenants.get(tenant);
    if (kept) return kept;
    const wall = this.lastWall;
    let scope: Scope | undefined;
    try {
      scope = this.freshScope(tenant, wall);
    } catch (error) {
      this.binding = undefined;
      this.failure = error instanceof Error ? error : new TypeError(`tenantQuotas threw ${String(error)}`);
      return null;
    }
    if (!scope) return undefined;
    this.tenants.set(tenant, scope);
    let due = Infinity;
    for (const counter of scope.counters) due = Math.min(due, counter.resetsAt);
    if (due < this.due) this.armAt(due);
    return scope;
  }

  /** A scope for `tenant` in the periods holding `wall`, not kept; `undefined` when the tenant has no quotas. */
  private freshScope(tenant: string, wall: number): Scope | undefined {
    const given = this.config.tenantQuotas!;
    const specs: readonly QuotaSpec[] =
      typeof given === "function"
        ? resolveQuotas(`tenantQuotas("${tenant.slice(0, 40)}")`, given(tenant), this.config.prices !== undefined)
        : given;
    if (specs.length === 0) return undefined;
    return { tenant, counters: specs.map((spec) => this.counter(spec, wall)) };
  }

  /** A counter for `spec` in the period holding `wall`. */
  private counter(spec: QuotaSpec, wall: number): Counter {
    const { startedAt, resetsAt } = this.bounds(spec.period, wall);
    return { spec, used: 0, reserved: 0, startedAt, resetsAt, told: 0 };
  }

  /** The bounds of the `period` holding `wall`, looked up in `Intl` once per period (not once per tenant). */
  private bounds(period: QuotaSpec["period"], wall: number): { startedAt: number; resetsAt: number } {
    const known = this.periods.get(period);
    if (known && wall >= known.startedAt && wall < known.resetsAt) return known;
    const { timeZone } = this.config;
    const found = { startedAt: periodStart(wall, period, timeZone), resetsAt: nextBoundary(wall, period, timeZone) };
    this.periods.set(period, found);
    return found;
  }

  /** Adds `amounts` (per unit) to the reserved of `scope`'s counters in the periods `hold` was charged in. */
  private add(scope: Scope, hold: QuotaHold, amounts: readonly number[]): void {
    const tell = this.events.quota !== undefined;
    for (const counter of scope.counters) {
      if (hold.wall < counter.startedAt) continue; // charged in a period that has ended
      const amount = amounts[counter.spec.index]!;
      if (amount === 0) continue;
      counter.reserved += amount;
      if (tell && amount > 0) this.tell(counter, scope.tenant);
    }
  }

  private settleInto(scope: Scope, hold: QuotaHold): void {
    for (const counter of scope.counters) {
      if (hold.wall < counter.startedAt) continue;
      const amount = hold.charge(counter.spec.index);
      counter.reserved -= amount;
      counter.used += amount;
    }
  }

  /** Tells `quota` listeners of a crossing of 80% or 100% (once each per period). */
  private tell(counter: Counter, tenant: string | undefined): void {
    const share = (counter.used + counter.reserved) / counter.spec.limit;
    const crossed = share >= 1 ? 1 : share >= 0.8 ? 0.8 : 0;
    if (crossed <= counter.told) return;
    counter.told = crossed;
    this.emit(crossed === 1 ? "100%" : "80%", counter, tenant);
  }

  private emit(change: QuotaEvent["change"], counter: Counter, tenant: string | undefined): void {
    const { unit, period } = counter.spec;
    this.events.quota?.emit({ ...stateOf(counter), change, unit, period, tenant });
  }

  private turnIfDue(counter: Counter, wall: number, tenant: string | undefined): void {
    if (wall < counter.resetsAt) return;
    if (this.events.quota && (tenant === undefined || holdsAny(counter))) this.emit("turned", counter, tenant);
    const { startedAt, resetsAt } = this.bounds(counter.spec.period, wall);
    counter.used = 0;
    counter.reserved = 0;
    counter.told = 0;
    counter.startedAt = startedAt;
    counter.resetsAt = resetsAt;
  }

  /** Turns every period that ended, forgets tenants that hold nothing, re-arms, lets waiters in. */
  private readonly fire = (): void => {
    this.timer = undefined;
    this.due = Infinity;
    if (this.shut) return;
    const wall = this.wall();
    for (const counter of this.own.counters) this.turnIfDue(counter, wall, undefined);
    for (const [tenant, scope] of this.tenants) {
      let keep = false;
      for (const counter of scope.counters) {
        this.turnIfDue(counter, wall, tenant);
        keep ||= holdsAny(counter);
      }
      // Calls in flight keep the scope object; their charges belong to the periods that ended.
      if (!keep) this.tenants.delete(tenant);
    }
    this.arm();
    this.turned();
  };

  /** Arms the timer for the next period to end, the limiter's or a tenant's (unref'd: it keeps no process alive). */
  private arm(): void {
    if (this.shut) return;
    let due = Infinity;
    for (const counter of this.own.counters) due = Math.min(due, counter.resetsAt);
    // Tenants' periods all end at calendar boundaries; with one quota set for all, one look suffices.
    if (typeof this.config.tenantQuotas !== "function") {
      const first = this.tenants.values().next().value;
      if (first) for (const counter of first.counters) due = Math.min(due, counter.resetsAt);
    } else {
      for (const scope of this.tenants.values())
        for (const counter of scope.counters) due = Math.min(due, counter.resetsAt);
    }
    this.armAt(due);
  }

  private armAt(due: number): void {
    if (this.shut) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = due;
    if (due === Infinity) return;
    const delay = Math.min(Math.max(0, Math.ceil(due - this.wall())), MAX_TIMEOUT_MS);
    this.timer = setTimeout(this.fire, delay);
    (this.timer as { unref?: () => void }).unref?.();
  }
}
