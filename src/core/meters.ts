import { amountProblem, costOf, needsSplitEstimate } from "./amounts.js";
import type { Budget, Dimension } from "./budget.js";
import { RequestTooLargeError } from "./errors.js";
import type { Estimate } from "./limits.js";
import { createMeter, tallyFor, type Meter } from "./meter.js";

/** Meters several `Meters` hold as one (a limiter group's shared dimensions): their tallies count every member's. */
export interface PooledMeters {
  /** Whether dimension `name` is one of the shared ones. */
  holds(name: string): boolean;
  /** The shared meters by name, once some member made them. */
  readonly byName: Map<string, Meter>;
}

/** The budget in force and a meter per dimension: what an estimate is checked against. */
export class Meters {
  /** Aligned with `dimensions`; kept by name in `byName` across reconfiguration. */
  list: readonly Meter[] = [];
  readonly byName = new Map<string, Meter>();
  dimensions: readonly Dimension[] = [];
  concurrency: number | undefined;
  /** Whether input and output are metered apart: estimates and usage must then be `{ input, output }`. */
  split = false;
  /** The largest plain token estimate every dimension can hold (-1: none, as `{ input, output }` is required). */
  private plainFit = -1;

  constructor(
    /** A limiter group's shared meters: the dimensions it holds are these very objects, counted by every member. */
    private readonly pool?: PooledMeters,
  ) {}

  /** Takes `budget` in force; meters of dimensions kept by name (and unit) carry over, the others retire. */
  apply({ dimensions, concurrency }: Budget): void {
    const pool = this.pool;
    const meters = dimensions.map((dimension) => {
      const pooled = pool?.holds(dimension.name) === true;
      const kept = this.byName.get(dimension.name) ?? (pooled ? pool!.byName.get(dimension.name) : undefined);
      // A dimension that changed what it counts is a new one: old charges are not in its units.
      const meter = kept?.dimension.unit === dimension.unit ? kept : createMeter(dimension);
      meter.dimension = dimension;
      if (pooled) pool!.byName.set(meter.name, meter);
      if (meter.tally.windowMs !== dimension.windowMs) meter.tally = tallyFor(dimension);
      return meter;
    });
    for (const old of this.byName.values()) old.retired = !meters.includes(old);
    this.byName.clear();
    for (const meter of meters) this.byName.set(meter.name, meter);
    this.list = meters;
    this.dimensions = dimensions;
    this.concurrency = concurrency;
    this.split = needsSplitEstimate(dimensions);
    const capacities = dimensions.map((d) => (d.unit === "requests" ? (d.capacity >= 1 ? Infinity : -1) : d.capacity));
    this.plainFit = this.split ? -1 : Math.min(Infinity, ...capacities);
  }

  /**
   * Why `estimate` can never be admitted under the budget in force, if it
   * cannot, for a class that leaves the fraction `reserve` of every capacity untouched.
   */
  problemWith(estimate: Estimate, reserve = 0): Error | undefined {
    // The common estimate, a plain token count that fits every capacity, takes two comparisons.
    if (
      reserve === 0 &&
      typeof estimate === "number" &&
      estimate >= 0 &&
      estimate <= this.plainFit &&
      estimate !== Infinity
    ) {
      return undefined;
    }
    const problem = amountProblem("estimate", estimate, this.split);
    if (problem) return problem;
    for (const d of this.dimensions) {
      const cost = costOf(d.unit, estimate);
      const room = d.capacity * (1 - reserve);
      if (cost > room) return new RequestTooLargeError(d.name, cost, room, d.capacity - room);
    }
    return undefined;
  }
}
