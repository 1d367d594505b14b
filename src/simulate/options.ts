import type { Limits } from "../core/limits.js";
import type { WorkloadCall } from "./workload.js";

/**
 * What a latency function is told about a call.
 * @inline
 */
export type LatencyCall = Pick<WorkloadCall, "prompt" | "maxTokens" | "completion">;

/**
 * A budget {@link simulate} takes: the simulated key enforces it and the limiter is configured with it.
 * @inline
 */
export type SimulateBudget = "rpm" | "tpm" | "rpd" | "tpd" | "itpm" | "otpm" | "concurrency";

/** Every {@link SimulateBudget}, in the order reports list them. */
export const SIMULATE_BUDGETS: readonly SimulateBudget[] = ["rpm", "tpm", "rpd", "tpd", "itpm", "otpm", "concurrency"];

/**
 * Where a run stands, for a progress display.
 * @inline
 */
export interface SimulateProgress {
  /** Which run: through the limiter, or the client with no limiter. */
  readonly run: "limiter" | "no limiter";
  /** Simulated milliseconds since the run started. */
  readonly simulatedMs: number;
  /** The shortest makespan any client could reach (see {@link SimulationResult.bound}): an estimate of the end. */
  readonly estimatedEndMs: number;
}

/**
 * Options of {@link simulate}: the key's budgets (at least one), how long calls take, and how
 * the run is sampled. The same budgets configure the simulated key and the limiter.
 *
 * @example
 * ```ts
 * import { simulate } from "llm-limiter/simulate";
 *
 * const result = await simulate([{ at: 0, prompt: 800, maxTokens: 1024, completion: 300 }], {
 *   rpm: 500,
 *   tpm: 200_000,
 *   latencyMs: 2_000,
 * });
 * console.log(result.limiter.summary.rejected, result.naive.summary.rejected);
 * ```
 */
export interface SimulateOptions extends Pick<Limits, SimulateBudget> {
  /**
   * Which provider's headers the simulated key sends, and the limiter reads.
   * @default `"anthropic"` when `itpm` or `otpm` is given, else `"openai"`
   */
  dialect?: "openai" | "anthropic";
  /**
   * Milliseconds from a call's admission until its answer completes and it settles, fixed or per call.
   * @default `300 + 15 * completion`: a first token after 300 ms, then 15 ms a token
   */
  latencyMs?: number | ((call: LatencyCall) => number);
  /**
   * Retries after the first attempt of a call that draws a 429, for both clients alike.
   * @default 10
   */
  retries?: number;
  /**
   * Simulated milliseconds between two samples of the charts (a whole number > 0).
   * @default about a three-hundredth of the estimated end, rounded to 100 ms, at least 100 ms
   */
  sampleMs?: number;
  /**
   * Simulated milliseconds after which a run still going is abandoned with an error.
   * @default ten times the estimated end, plus an hour
   */
  limitMs?: number;
  /**
   * The limiter's priority classes, the most urgent first, when the workload's calls name a `priority`
   * (each must be one of them). A call that names none takes the limiter's `defaultPriority`: `"default"`
   * when it is a class, else the last one. Not used by the client with no limiter, which knows no order.
   * @default the workload's priorities in the order they first arrive (the first the most urgent); none
   * when no call names one
   */
  priorities?: readonly string[];
  /** Called after every sample of each run, with where it stands. */
  onProgress?: (progress: SimulateProgress) => void;
}
