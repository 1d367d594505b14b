import { costOf } from "../core/amounts.js";
import { buildBudget } from "../core/budget.js";
import type { Limits } from "../core/limits.js";
import type { Limiter } from "../limiter.js";
import type { WaitPredictor } from "./run-any.js";

/**
 * The wait `runAny` predicts for a member on a shared store: its levels as of its latest round trip less
 * everything it has queued (of any class or tenant), refilled at each dimension's rate. Other processes'
 * draws show once the member has booked since. `limits`: the member's budgets, which give each dimension's unit.
 */
export function storeWait(limiter: Limiter, limits: Limits): WaitPredictor {
  const units = new Map(buildBudget(limits).dimensions.map((d) => [d.name, d.unit]));
  return {
    predictedWaitMs(estimate) {
      let waitMs = 0;
      for (const [name, d] of Object.entries(limiter.snapshot().dimensions)) {
        const unit = units.get(name);
        if (unit === undefined) continue; // learned from headers: its unit is not known here
        const missing = costOf(unit, estimate) + d.queued - d.available;
        if (missing > 0) waitMs = Math.max(waitMs, (missing * d.windowMs) / d.limit);
      }
      return waitMs;
    },
  };
}
