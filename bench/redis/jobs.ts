/** What bench/redis.ts and its worker processes say to each other over IPC. */

/** The libraries compared. */
export type Library =
  "llm-limiter" | "llm-limiter-settle" | "llm-limiter-rpm" | "llm-limiter-at-once" | "rate-limiter-flexible";

/** A budget in requests: `limit` per `windowMs`, holding `limit`. */
export interface RequestBudget {
  readonly limit: number;
  readonly windowMs: number;
}

/** Admissions back to back from `callers` loops for `durationMs`, on a budget that never binds. */
export interface ThroughputJob {
  readonly kind: "throughput";
  readonly library: Library;
  readonly redisUrl: string;
  /** When given, the job goes through an ioredis `Cluster` on these nodes instead of `redisUrl`. */
  readonly cluster?: readonly { readonly host: string; readonly port: number }[];
  readonly key: string;
  readonly callers: number;
  readonly durationMs: number;
}

/** `requests` admissions all at once on a budget that binds; each waits its turn. */
export interface MakespanJob {
  readonly kind: "makespan";
  readonly library: Library;
  readonly redisUrl: string;
  readonly key: string;
  readonly budget: RequestBudget;
  readonly requests: number;
}

export type Job = ThroughputJob | MakespanJob;

/** A worker's result. */
export interface Report {
  readonly admissions: number;
  /** From "go" to the last admission. */
  readonly elapsedMs: number;
  /** Makespan jobs: every admission's time, epoch ms with sub-ms precision (see `epochNow`). */
  readonly admittedAt: readonly number[];
  /** Commands this process sent to Redis from "go" on: its round trips. */
  readonly commandsSent: number;
}

export type ToParent = { readonly type: "ready" } | { readonly type: "done"; readonly report: Report };
export type ToWorker = { readonly type: "go" };

/** Epoch milliseconds with the monotonic clock's precision, comparable across processes. */
export const epochNow = (): number => performance.timeOrigin + performance.now();
