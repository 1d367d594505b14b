/** What a run achieved, against the best any client could do under the provider's true limits. */
import type { Run } from "./simulate.js";
import type { Workload } from "./workloads.js";

export interface Metrics {
  /** 429 responses drawn, in all. */
  readonly rejected: number;
  /** 429s by the dimension that bound, e.g. `rpm 12, tpm 3`. */
  readonly rejectedBy: string;
  /** Jobs that gave up (retries exhausted). */
  readonly failed: number;
  /** From the first arrival until the last job was done with. */
  readonly makespanMs: number;
  readonly boundMs: number;
  /** `boundMs / makespanMs`: 1 is as fast as the quota allows. */
  readonly ratio: number;
  /** Share of attempts after the first simulated minute answered 429. */
  readonly lateShare: number;
}

export const MINUTE_MS = 60_000;
export const AZURE_SUB_WINDOW_MS = 10_000;

/** What one of Azure's 10 s sub-windows admits of a per-minute `limit`: floor(limit / 6), at least 1. */
export function azureAllowance(limit: number): number {
  return Math.max(1, Math.floor(limit / 6));
}

/**
 * A dimension's true burst and refill rate (per ms). Under Azure's sub-windows
 * the burst is one sub-window's allowance, which refills every 10 s.
 */
function trueShape(limit: number, window: Workload["provider"]["window"]): { capacity: number; perMs: number } {
  if (window !== "azure") return { capacity: limit, perMs: limit / MINUTE_MS };
  const capacity = azureAllowance(limit);
  return { capacity, perMs: capacity / AZURE_SUB_WINDOW_MS };
}

/**
 * bound = max(last arrival, (N − C_rpm) / r_rpm, (Σ(prompt + actual) − C_tpm) / r_tpm):
 * no client finishes sooner on a token-bucket provider. A fixed window admits
 * up to twice its limit across a boundary, so there the ratio can exceed 1.
 */
export function boundMs(workload: Workload): number {
  const { quota, window } = workload.provider;
  const rpm = trueShape(quota.rpm, window);
  const tpm = trueShape(quota.tpm, window);
  const tokens = workload.jobs.reduce((sum, j) => sum + j.prompt + j.actual, 0);
  const lastArrival = Math.max(...workload.jobs.map((j) => j.at));
  return Math.max(lastArrival, (workload.jobs.length - rpm.capacity) / rpm.perMs, (tokens - tpm.capacity) / tpm.perMs);
}

export function measure(workload: Workload, run: Run): Metrics {
  const rejections = run.calls.filter((c) => c.status === 429);
  const byDimension = new Map<string, number>();
  for (const c of rejections) byDimension.set(c.rejectedBy ?? "?", (byDimension.get(c.rejectedBy ?? "?") ?? 0) + 1);
  const late = run.calls.filter((c) => c.receivedAt >= MINUTE_MS);
  const firstArrival = Math.min(...workload.jobs.map((j) => j.at));
  const makespanMs = Math.max(...run.outcomes.map((o) => o.doneAt)) - firstArrival;
  const bound = boundMs(workload);
  return {
    rejected: rejections.length,
    rejectedBy: [...byDimension].map(([d, n]) => `${d} ${n}`).join(", "),
    failed: run.outcomes.filter((o) => !o.served).length,
    makespanMs,
    boundMs: bound,
    ratio: bound / makespanMs,
    lateShare: late.length === 0 ? 0 : late.filter((c) => c.status === 429).length / late.length,
  };
}
