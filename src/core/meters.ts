import { amountProblem, costOf, needsSplitEstimate } from "./amounts.js";
import type { Budget, Dimension } from "./budget.js";
import { RequestTooLargeError } from "./errors.js";
import type { Estimate } from "./limits.js";
import { createMeter, tallyFor, type Meter } from "./meter.js";

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

  /** Takes `budget` in force; meters of dimensions kept by name (and unit) carry over, the others retire. */
  apply({ dimensions, concurrency }: Budget): void {
    const meters = dimensions.map((dimension) => {
      const kept = this.byName.get(dimension.name);
      // A dimension that changed what it counts is a new one: old charges are not in its units.
      const meter = kept?.dimension.unit === dimension.unit ? kept : createMeter(dimension);
      meter.dimension = dimension;
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

  /** Why `estimate` can never be admitted under the budget in force, if it cannot. */
  problemWith(estimate: Estimate): Error | undefined {
    // The common estimate, a plain token count that fits every capacity, takes two comparisons.
    if (typeof estimate === "number" && estimate >= 0 && estimate <= this.plainFit && estimate !== Infinity) {
      return undefined;
    }
    const problem = amountProblem("estimate", estimate, this.split);
    if (problem) return problem;
    for (const d of this.dimensions) {
      const cost = costOf(d.unit, estimate);
      if (cost > d.capacity) return new RequestTooLargeError(d.name, cost, d.capacity);
    }
    return undefined;
  }
}
