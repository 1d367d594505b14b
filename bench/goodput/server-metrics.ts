/** What a run achieved against a self-hosted server: throughput, and the latency its calls saw. */
import type { Run } from "./simulate.js";
import type { Workload } from "./workloads.js";

export interface ServerMetrics {
  /** 429 responses drawn, retries included. */
  readonly rejected: number;
  /** Jobs not served: retries exhausted, or still waiting at the cut-off. */
  readonly failed: number;
  /** Calls served per second, from the first arrival to the last completion. */
  readonly throughputPerS: number;
  /** The 95th percentile of served calls' latency at the server, admission to completion. */
  readonly p95LatencyMs: number;
  /** From the first arrival until the last job was done with; `Infinity` when any stalled. */
  readonly makespanMs: number;
}

/** The `q`-quantile of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

export function measureServer(workload: Workload, run: Run): ServerMetrics {
  const firstArrival = Math.min(...workload.jobs.map((j) => j.at));
  const served = run.calls.filter((c) => c.status === 200 && c.completedAt !== undefined);
  const lastCompletion = Math.max(...served.map((c) => c.completedAt!));
  return {
    rejected: run.calls.filter((c) => c.status === 429).length,
    failed: run.outcomes.filter((o) => !o.served).length,
    throughputPerS: (served.length * 1_000) / (lastCompletion - firstArrival),
    p95LatencyMs: quantile(
      served.map((c) => c.completedAt! - c.receivedAt),
      0.95,
    ),
    makespanMs: Math.max(...run.outcomes.map((o) => o.doneAt ?? Infinity)) - firstArrival,
  };
}

/** Throughputs within this share of each other tie; the lower p95 then wins. */
const TIE = 0.01;

/**
 * The best of a sweep: among the sizes that served every call, the highest throughput, and among near-ties the lowest
 * p95 latency.
 */
export function bestOf<T extends { readonly metrics: ServerMetrics }>(rows: readonly T[]): T {
  const complete = rows.filter((r) => r.metrics.failed === 0);
  const pool = complete.length > 0 ? complete : rows;
  const top = Math.max(...pool.map((r) => r.metrics.throughputPerS));
  const near = pool.filter((r) => r.metrics.throughputPerS >= top * (1 - TIE));
  return near.reduce((best, r) => (r.metrics.p95LatencyMs < best.metrics.p95LatencyMs ? r : best));
}
