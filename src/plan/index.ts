import { bindingReason, recommendations } from "./advice.js";
import { bindingOf, callsInFlight, dimensionsOf, drainMs } from "./arithmetic.js";
import type { Plan, PlanInput } from "./types.js";
import { validatePlanInput } from "./validate.js";

export type { DimensionPlan, Plan, PlanInput } from "./types.js";

/** Calls full buckets admit at once with these calls. */
function callsAtOnce(input: PlanInput & { latencyMs: number }): number {
  return Math.min(...dimensionsOf(input).map((d) => d.callsAtOnce));
}

/**
 * How a key's budgets hold up under a workload: which budget binds and why, the TPM/RPM
 * crossover, the calls per minute sustained with reservations held for the latency, what
 * over-reserving `maxTokens` costs, and how long a burst takes to drain. Pure arithmetic on
 * a steady-state model whose assumptions `src/plan/arithmetic.ts` states; no I/O.
 *
 * @throws TypeError for a wrong type, an unknown option or no budget.
 * @throws RangeError for a value out of range, or a call too large for a budget ever to admit.
 */
export function plan(input: PlanInput): Plan {
  const checked = validatePlanInput(input);
  const { latencyMs, completion, maxTokens, burst } = checked;
  const dimensions = dimensionsOf(checked);
  const binding = bindingOf(dimensions);
  const rate = binding.callsPerMinute;
  if (rate === Infinity)
    throw new RangeError("no budget given limits these calls: an input budget with a prompt of 0 costs nothing");
  const inFlight = callsInFlight(rate, latencyMs);
  for (const d of dimensions) d.heldShare = Math.min(1, (inFlight * (d.reserved - d.consumed)) / d.capacity);
  const crossover = checked.rpm !== undefined && checked.tpm !== undefined ? checked.tpm / checked.rpm : undefined;
  const atOnce = Math.min(...dimensions.map((d) => d.callsAtOnce));
  const atOnceExact = callsAtOnce({ ...checked, maxTokens: completion });
  // Twice the typical answer leaves room for the long ones.
  const trimmed = Math.min(maxTokens, 2 * completion);
  const result: Plan = {
    dimensions,
    binding: { dimension: binding.name, reason: bindingReason(binding, dimensions, crossover, checked) },
    ...(crossover === undefined ? {} : { crossover }),
    callsPerMinute: rate,
    inFlight: { calls: inFlight, heldTokens: inFlight * (maxTokens - completion) },
    overReservation: {
      factor: maxTokens / completion,
      heldShare: Math.max(...dimensions.map((d) => d.heldShare)),
      callsAtOnce: atOnce,
      callsAtOnceExact: atOnceExact,
      burstShareLost: 1 - atOnce / atOnceExact,
    },
    recommendations: recommendations(
      binding,
      checked,
      atOnce,
      callsAtOnce({ ...checked, maxTokens: trimmed }),
      trimmed,
    ),
  };
  if (burst !== undefined) {
    for (const d of dimensions) d.drainMs = drainMs(d, burst, latencyMs);
    const slowest = dimensions.reduce((most, d) => ((d.drainMs ?? 0) > (most.drainMs ?? 0) ? d : most));
    result.burst = { calls: burst, drainMs: slowest.drainMs ?? 0, dimension: slowest.name };
  }
  return result;
}
