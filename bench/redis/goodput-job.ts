/** What bench/redis-goodput.ts and its worker processes say to each other over IPC. */

/** One process's share of a goodput run. */
export interface GoodputJob {
  /** The shared Redis; `undefined`: the memory store (the reference). */
  readonly redisUrl: string | undefined;
  readonly key: string;
  /** The simulated provider, `provider.listen()`'s url. */
  readonly providerUrl: string;
  /** Calls this process makes, all at once. */
  readonly calls: number;
  readonly maxTokens: number;
  /** The user message of every call; `promptTokens` is what the provider counts for it. */
  readonly prompt: string;
  readonly promptTokens: number;
  readonly limits: { readonly rpm: number; readonly tpm: number };
}

/** What a process reports once its calls are done. */
export interface GoodputReport {
  /** When each call completed (epoch ms, see `epochNow`). */
  readonly completedAt: readonly number[];
  /** When this process had queued its calls (epoch ms). */
  readonly queuedAt: number;
  /** When each call was admitted, first attempts only (epoch ms, in order). */
  readonly admittedAt: readonly number[];
  /** 429s this process received. */
  readonly rejected: number;
  /** Distinct warnings the limiter reported (a store outage, a refused write). */
  readonly warnings: readonly string[];
}

export type FromGoodputWorker = { readonly type: "ready" } | { readonly type: "done"; readonly report: GoodputReport };
