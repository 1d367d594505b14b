/**
 * Drives a real Limiter under fake time next to an independent reference model
 * (plain bucket arithmetic written here, not imported from src) and checks the
 * invariants of shared/design.md at every admission and after every step.
 *
 * - `scenario.ts`: what a property generates (budgets, ops) and its limiter options.
 * - `model.ts`: the reference model.
 * - `driver.ts`: the `Harness`, which applies ops to limiter and model and moves virtual time.
 * - `invariants/`: one function per invariant, by when the driver checks it (on admission, on refusal, between
 *   steps, once drained).
 */
export { Harness } from "./driver.js";
export type { Request } from "./state.js";
export {
  DAY,
  MINUTE,
  SHORTHAND_SHAPES,
  type Arrival,
  type Change,
  type Config,
  type Op,
  type Scenario,
  type Shorthand,
} from "./scenario.js";
