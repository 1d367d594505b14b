import type { SimulationOutcome, SimulationSample, SimulationSummary } from "./types.js";
import type { WorkloadCall } from "./workload.js";

const MINUTE_MS = 60_000;

/** The value below which `share` of the sorted `values` lie (nearest rank); 0 for none. */
function percentile(sorted: readonly number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

/** A run's totals from its outcomes and its last sample. */
export function summarize(
  calls: readonly WorkloadCall[],
  outcomes: readonly SimulationOutcome[],
  last: SimulationSample,
): SimulationSummary {
  const completed = outcomes.filter((o) => o.ok);
  const makespanMs = Math.max(...outcomes.map((o) => o.endedAt));
  const tokens = completed.reduce((sum, o) => sum + o.call.prompt + o.call.completion, 0);
  const latencies = completed.map((o) => o.endedAt - o.call.at).sort((a, b) => a - b);
  return {
    calls: calls.length,
    completed: completed.length,
    failed: outcomes.length - completed.length,
    sent: last.sent,
    rejected: last.rejected,
    makespanMs,
    tokensPerMinute: makespanMs > 0 ? (tokens * MINUTE_MS) / makespanMs : 0,
    latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), max: latencies.at(-1) ?? 0 },
  };
}
