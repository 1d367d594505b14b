/**
 * The steady-state arithmetic of a plan. The model, and its assumptions:
 *
 * - Every budget is a token bucket of capacity C (its limit, as a fresh key has it) refilling
 *   at r = limit / window, as the provider meters it. Calls all look alike: `prompt` in,
 *   `completion` out, `maxTokens` sent, in flight for `latencyMs` from admission to settle.
 * - A token budget takes the reservation R = prompt + maxTokens at admission and, one latency
 *   later, refunds the held part h = maxTokens - completion: a call keeps c = R - h. Input
 *   budgets take the prompt, output budgets maxTokens (keeping completion), request budgets 1.
 * - At x calls/min the bucket loses x·R and gets back x·h a minute, so it sustains x·c <= r:
 *   x = r / c, whatever the latency. The held tokens in flight, x · L/60 s · h, are not lost
 *   but lent: they come back as the next reservations go out. What they cost is room:
 *   while they are out, a burst finds the bucket that much emptier (`heldShare`), and a full
 *   bucket admits C / R calls at once, not C / c.
 * - Concurrency K with latency L is a bucket of K slots refilling K per L (Little's law):
 *   x <= K · 60 s / L.
 * - The sustainable rate is the least any budget allows; ties go to the first in option order.
 */
import { SHORTHANDS } from "../core/budget.js";
import type { DimensionPlan, PlanInput } from "./types.js";
import { PLAN_LIMITS } from "./validate.js";

const MINUTE = 60_000;

type Call = Pick<PlanInput, "prompt" | "completion" | "maxTokens">;

/** Units a call reserves at admission and keeps once settled, by the budget's unit. */
function perCall(name: (typeof PLAN_LIMITS)[number], call: Call): { reserved: number; consumed: number } {
  if (name === "concurrency") return { reserved: 1, consumed: 1 };
  switch (SHORTHANDS[name].unit) {
    case "requests":
      return { reserved: 1, consumed: 1 };
    case "tokens":
      return { reserved: call.prompt + call.maxTokens, consumed: call.prompt + call.completion };
    case "input":
      return { reserved: call.prompt, consumed: call.prompt };
    case "output":
      return { reserved: call.maxTokens, consumed: call.completion };
  }
}

/**
 * Each budget given, with what one call costs it and the calls per minute it alone sustains.
 * Throws RangeError when a call reserves more than a bucket holds: it could never be admitted.
 */
export function dimensionsOf(input: PlanInput & { latencyMs: number }): DimensionPlan[] {
  const dimensions: DimensionPlan[] = [];
  for (const name of PLAN_LIMITS) {
    const limit = input[name];
    if (limit === undefined) continue;
    const windowMs = name === "concurrency" ? input.latencyMs : SHORTHANDS[name].windowMs;
    const { reserved, consumed } = perCall(name, input);
    if (reserved > limit) {
      throw new RangeError(`a call reserves ${reserved} of ${name} ${limit}: it could never be admitted`);
    }
    // A zero prompt costs an input budget nothing: it never binds.
    const callsPerMinute = consumed === 0 ? Infinity : (limit * MINUTE) / windowMs / consumed;
    dimensions.push({
      name,
      limit,
      windowMs,
      capacity: limit,
      reserved,
      consumed,
      callsPerMinute,
      heldShare: 0,
      callsAtOnce: Math.floor(limit / reserved),
    });
  }
  return dimensions;
}

/** The budget that allows the fewest calls per minute. */
export function bindingOf(dimensions: readonly DimensionPlan[]): DimensionPlan {
  return dimensions.reduce((least, d) => (d.callsPerMinute < least.callsPerMinute ? d : least));
}

/** Calls in flight at `callsPerMinute` with calls lasting `latencyMs` (Little's law). */
export function callsInFlight(callsPerMinute: number, latencyMs: number): number {
  return (callsPerMinute * latencyMs) / MINUTE;
}

/**
 * Ms until a budget, full and idle, admits the last of `burst` calls arriving at once: the
 * (B - C) / r of a request budget. A token budget must also find the last call's whole
 * reservation, with the held part of the calls still in flight not yet refunded: when the
 * burst outlasts a latency these are about one latency's worth at the budget's own rate (at
 * most B - 1 calls), before it they are all the calls. A first-order model, true to within a
 * few latencies.
 */
export function drainMs(d: DimensionPlan, burst: number, latencyMs: number): number {
  // Multiply first, as the buckets do, so whole numbers stay exact: 400 at 100/min is 240,000 ms.
  const msFor = (units: number): number => (units * d.windowMs) / d.limit;
  const held = d.reserved - d.consumed;
  const beforeRefunds = msFor(burst * d.reserved - d.capacity);
  if (beforeRefunds <= latencyMs) return Math.max(0, beforeRefunds);
  const holding = Math.min(burst - 1, callsInFlight(d.callsPerMinute, latencyMs));
  const afterRefunds = msFor((burst - 1) * d.consumed + d.reserved + holding * held - d.capacity);
  return Math.max(latencyMs, afterRefunds);
}
