import type { SimulateBudget } from "./options.js";
import type { WorkloadCall } from "./workload.js";

/**
 * One sample of a run, taken every `sampleMs` of simulated time. Counts are totals since the start.
 * @inline
 */
export interface SimulationSample {
  /** Simulated ms since the start. */
  readonly t: number;
  /** Calls that have arrived. */
  readonly arrived: number;
  /** Attempts sent to the provider (retries included). */
  readonly sent: number;
  /** Attempts the provider answered 429. */
  readonly rejected: number;
  /** Attempts the provider served to completion. */
  readonly served: number;
  /**
   * Calls waiting: in the limiter's queue, or (no limiter) sleeping on a 429's `retry-after`.
   */
  readonly waiting: number;
  /** Attempts at the provider, not yet answered. */
  readonly inFlight: number;
  /**
   * The limiter's bucket levels (`limiter.snapshot()`: whole units a request could take now), by
   * dimension; empty for the run with no limiter. Below 0 while a dimension is in debt.
   */
  readonly levels: Readonly<Record<string, number>>;
  /** The capacity (burst size) of each of those buckets at that moment. */
  readonly capacities: Readonly<Record<string, number>>;
  /**
   * What the simulated key's own buckets hold, by dimension, in their units (exact, not floored
   * as headers report them; below 0 while in debt): beside `levels`, what the limiter believed.
   * Their capacities are the run's `budgets`.
   */
  readonly providerLevels: Readonly<Record<string, number>>;
  /**
   * How many calls the simulated key would have admitted at that moment, one after another, each
   * as demanding as the most demanding call waiting (0 when none waited; at most the workload's
   * calls). Room for several while nothing is sent marks a stall: calls waited for no budget.
   */
  readonly waitingRoom: number;
}

/**
 * How one call ended.
 * @inline
 */
export interface SimulationOutcome {
  /** The call, as the workload has it. */
  readonly call: WorkloadCall;
  /** Whether it completed (it may have been retried on the way). */
  readonly ok: boolean;
  /** Simulated ms since the start when it completed or was given up on. */
  readonly endedAt: number;
  /** Attempts it took at the provider. */
  readonly attempts: number;
  /** Why it failed. */
  readonly error?: string;
}

/** A run's totals. */
export interface SimulationSummary {
  /** Calls in the workload. */
  readonly calls: number;
  /** Calls that completed. */
  readonly completed: number;
  /** Calls given up on: still 429 after every retry, or rejected by the limiter. */
  readonly failed: number;
  /** Attempts sent to the provider (retries included). */
  readonly sent: number;
  /** 429s the provider answered. */
  readonly rejected: number;
  /** Simulated ms from the start until the last call ended. */
  readonly makespanMs: number;
  /** Tokens (prompt + completion) of completed calls per simulated minute of the makespan. */
  readonly tokensPerMinute: number;
  /** Arrival to completion of completed calls, in ms: the median, the 95th percentile and the longest. */
  readonly latencyMs: {
    /** Half the calls took no longer. */
    readonly p50: number;
    /** 95% of the calls took no longer. */
    readonly p95: number;
    /** The longest. */
    readonly max: number;
  };
}

/** One run: its totals, its samples over time and every call's outcome (in workload order). */
export interface SimulationRun {
  /** The run's totals. */
  readonly summary: SimulationSummary;
  /** Every `sampleMs`, from 0 to the first sample after the run ended. */
  readonly samples: readonly SimulationSample[];
  /** How each call ended, in workload order. */
  readonly outcomes: readonly SimulationOutcome[];
}

/** What {@link simulate} returns: the same workload run through the limiter and with no limiter. */
export interface SimulationResult {
  /** The budgets of the simulated key (and of the limiter). */
  readonly budgets: Readonly<Partial<Record<SimulateBudget, number>>>;
  /** The provider headers of the key. */
  readonly dialect: "openai" | "anthropic";
  /** The sampling interval of both runs, in simulated ms. */
  readonly sampleMs: number;
  /** The workload in figures. */
  readonly workload: {
    /** Calls. */
    readonly calls: number;
    /** When the last call arrives, in ms. */
    readonly lastArrivalMs: number;
    /** Tokens the calls use: prompt + completion, summed. */
    readonly tokensUsed: number;
    /** Tokens reserved at admission: prompt + maxTokens, summed. */
    readonly tokensReserved: number;
  };
  /**
   * The shortest makespan any client could reach from full buckets, and what binds it: the last
   * answer (arrival + latency), or a budget's drain (what exceeds one full bucket, at the refill rate).
   */
  readonly bound: {
    /** The bound, in ms from the start. */
    readonly ms: number;
    /** What sets it: `"last answer"`, or the name of the budget that drains last (`"tpm"`). */
    readonly binding: string;
  };
  /** Through a `Limiter` configured with the key's budgets, each call with `limiter.run` and its retries. */
  readonly limiter: SimulationRun;
  /** No limiter: each call sent on arrival; after a 429, sent again once its `retry-after` has passed. */
  readonly naive: SimulationRun;
  /** Warnings the limiter emitted, as messages. */
  readonly warnings: readonly string[];
}
