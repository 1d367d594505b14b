/** What bench/event-loop.ts tells its simulator process. */
export interface SimulatorSetup {
  readonly rpm: number;
  readonly tpm: number;
  readonly seed: number;
  /** Each call's delay to the provider and its response's latency: uniform in [0, networkMs]. */
  readonly networkMs: number;
}

/** One run of bench/event-loop.ts: a worker process sends `CALLS` calls at once through one limiter. */
export interface LagJob {
  readonly url: string;
  readonly calls: number;
  readonly rpm: number;
  readonly tpm: number;
  /** `"fetch"`: `new OpenAI({ fetch: limiter.fetch() })`; `"run"`: the README's manual form. */
  readonly form: "fetch" | "run";
  /** Whether the limiter is told `provider: "openai"` (else it detects the provider from the headers). */
  readonly providerGiven: boolean;
}

/** What a worker reports once every call has settled. */
export interface LagReport {
  readonly makespanMs: number;
  /** CPU time the run's process used (user + system): against the makespan, how starved it was. */
  readonly cpuMs: number;
  /** Calls that failed in the end (after the SDK's or `run`'s retries). */
  readonly failed: number;
  /** The distinct failures, a few. */
  readonly errors: readonly string[];
  /** The widest arrival allowance `snapshot()` showed, sampled at each completion (absent before it had one). */
  readonly widestAllowanceMs: number | undefined;
}
