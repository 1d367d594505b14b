import { clock, int } from "./format.js";
import type { SimulationResult, SimulationSummary } from "./types.js";

const line = (label: string, s: SimulationSummary): string =>
  `${label.padEnd(12)} ${int(s.completed)} of ${int(s.calls)} completed, ${int(s.failed)} failed, ` +
  `${int(s.rejected)} 429s in ${int(s.sent)} attempts, makespan ${clock(s.makespanMs, true)}, ` +
  `p95 latency ${(s.latencyMs.p95 / 1000).toFixed(1)} s`;

/** The two runs in a few lines, for `llm-limiter simulate` without `--json`. */
export function renderSummary(result: SimulationResult): string {
  return [
    `${int(result.workload.calls)} calls; no client can finish before ${clock(result.bound.ms, true)} (${result.bound.binding})`,
    line("llm-limiter", result.limiter.summary),
    line("no limiter", result.naive.summary),
    ...result.warnings.map((w) => `warning: ${w}`),
  ].join("\n");
}
