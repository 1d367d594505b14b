import type { LatencyCall, SimulateBudget } from "./options.js";
import type { WorkloadCall } from "./workload.js";

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** What each rate budget counts of a call, and over which window it refills. */
const RATES: Readonly<Record<Exclude<SimulateBudget, "concurrency">, [number, (c: WorkloadCall) => number]>> = {
  rpm: [MINUTE_MS, () => 1],
  tpm: [MINUTE_MS, (c) => c.prompt + c.completion],
  rpd: [DAY_MS, () => 1],
  tpd: [DAY_MS, (c) => c.prompt + c.completion],
  itpm: [MINUTE_MS, (c) => c.prompt],
  otpm: [MINUTE_MS, (c) => c.completion],
};

/**
 * The shortest makespan any client could reach from full buckets, and what binds it. No client
 * finishes before the last answer (arrival + latency); none spends a budget's total faster than
 * one full bucket plus the refill rate; none runs more calls than `concurrency` at once.
 */
export function lowerBound(
  calls: readonly WorkloadCall[],
  budgets: Readonly<Partial<Record<SimulateBudget, number>>>,
  latencyMs: (call: LatencyCall) => number,
): { ms: number; binding: string } {
  const terms: [string, number][] = [["last answer", Math.max(...calls.map((c) => c.at + latencyMs(c)))]];
  for (const [name, [windowMs, units]] of Object.entries(RATES)) {
    const limit = budgets[name as SimulateBudget];
    if (limit === undefined) continue;
    const total = calls.reduce((sum, c) => sum + units(c), 0);
    terms.push([name, (Math.max(0, total - limit) * windowMs) / limit]);
  }
  if (budgets.concurrency !== undefined) {
    terms.push(["concurrency", calls.reduce((sum, c) => sum + latencyMs(c), 0) / budgets.concurrency]);
  }
  const [binding, ms] = terms.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { ms, binding };
}
