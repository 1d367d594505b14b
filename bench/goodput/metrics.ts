/** What a run achieved, against the best any client could do under the provider's true limits. */
import type { OracleRun } from "./oracle.js";
import type { Run } from "./simulate.js";
import type { Workload } from "./workloads.js";

export interface Metrics {
  /** 429 responses drawn, in all. */
  readonly rejected: number;
  /** 429s by the dimension that bound, e.g. `rpm 12, tpm 3`. */
  readonly rejectedBy: string;
  /** Jobs not served: retries exhausted, or still waiting at the cut-off. */
  readonly failed: number;
  /** Jobs still waiting at the cut-off. */
  readonly stalled: number;
  /** From the first arrival until the last job was done with; `Infinity` when any stalled. */
  readonly makespanMs: number;
  readonly boundMs: number;
  /** `boundMs / makespanMs`: 1 is as fast as the quota allows. */
  readonly ratio: number;
  /** Share of attempts after the first simulated minute answered 429. */
  readonly lateShare: number;
  /** 429s per job: at least the share of jobs that drew one. */
  readonly rejectedPerCall: number;
  /**
   * 429s drawn by calls a client made once it had its first {@link FIRST_RESPONSES} responses back (a 429 is a response
   * too).
   */
  readonly rejectedAfterResponses: number;
  /** Admissions per minute from the 60th second until the oracle's last admission. */
  readonly admissionsPerMinute: number;
  /** 429s drawn by the restarted process (`restartedClient`). */
  readonly rejectedByRestarted: number;
}

/** The responses a client may need before it has learned what the headers say. */
export const FIRST_RESPONSES = 5;

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

/**
 * Admissions per minute from the 60th second to `untilMs` (both included), of admission times relative to the start.
 */
export function admissionsPerMinute(admittedAt: readonly number[], untilMs: number): number {
  const counted = admittedAt.filter((t) => t >= MINUTE_MS && t <= untilMs).length;
  return (counted * MINUTE_MS) / (untilMs - MINUTE_MS);
}

export function measure(workload: Workload, run: Run, oracle: OracleRun): Metrics {
  const rejections = run.calls.filter((c) => c.status === 429);
  const byDimension = new Map<string, number>();
  for (const c of rejections) byDimension.set(c.rejectedBy ?? "?", (byDimension.get(c.rejectedBy ?? "?") ?? 0) + 1);
  const late = run.calls.filter((c) => c.receivedAt >= MINUTE_MS);
  const firstArrival = Math.min(...workload.jobs.map((j) => j.at));
  const stalled = run.outcomes.filter((o) => o.doneAt === undefined).length;
  const makespanMs = Math.max(...run.outcomes.map((o) => o.doneAt ?? Infinity)) - firstArrival;
  const bound = boundMs(workload);
  const rejectedAttempts = run.attempts.filter((a) => a.status === 429);
  const admitted = run.calls.filter((c) => c.status === 200).map((c) => c.receivedAt);
  return {
    rejected: rejections.length,
    rejectedBy: [...byDimension].map(([d, n]) => `${d} ${n}`).join(", "),
    failed: run.outcomes.filter((o) => !o.served).length,
    stalled,
    makespanMs,
    boundMs: bound,
    ratio: bound / makespanMs,
    lateShare: late.length === 0 ? 0 : late.filter((c) => c.status === 429).length / late.length,
    rejectedPerCall: rejections.length / workload.jobs.length,
    rejectedAfterResponses: rejectedAttempts.filter((a) => a.responsesBefore >= FIRST_RESPONSES).length,
    admissionsPerMinute: admissionsPerMinute(admitted, Math.max(...oracle.admittedAt)),
    rejectedByRestarted: rejectedAttempts.filter((a) => a.client === workload.restartedClient).length,
  };
}
