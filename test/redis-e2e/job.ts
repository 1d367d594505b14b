/** What the test process and its worker processes say to each other over IPC. */

/** One worker's share of a workload. */
export interface WorkerJob {
  /** The shared Redis; `undefined`: a limiter on its own memory store (a control run). */
  readonly redisUrl: string | undefined;
  /** The Redis key every worker of the run shares. */
  readonly key: string;
  /** The simulated provider, `provider.listen()`'s url. */
  readonly providerUrl: string;
  /** Which API the provider speaks: OpenAI chat completions or Anthropic messages. */
  readonly dialect: "openai" | "anthropic";
  /** The limiter's budgets (the provider's true quota). */
  readonly limits: { readonly rpm?: number; readonly tpm?: number; readonly itpm?: number; readonly otpm?: number };
  /** Calls this worker makes, all at once. */
  readonly calls: number;
  /** `max_tokens` of every call. */
  readonly maxTokens: number;
  /** The limiter's `initial`; `undefined`: the default (a start-up probe). */
  readonly initial?: "full";
}

/** One response's Anthropic input-token reset, as read by the worker and as sent. */
export interface ResetReading {
  /** `limiter.sync(headers).dimensions.itpm.resetMs` in the worker. */
  readonly resetMs: number | undefined;
  /** The response's `date` header. */
  readonly date: string;
  /** `anthropic-ratelimit-input-tokens-reset`, an RFC 3339 time. */
  readonly reset: string;
}

/** What a worker reports when its share is done. */
export interface WorkerReport {
  /** HTTP status of every call. */
  readonly statuses: readonly number[];
  /** The worker's `Date.now()` when it received "go". */
  readonly wallAtGo: number;
  /** Anthropic runs: the last successful response's reset. */
  readonly lastReset: ResetReading | undefined;
}

export type ToParent = { readonly type: "ready" } | { readonly type: "done"; readonly report: WorkerReport };
export type ToWorker = { readonly type: "go" };
