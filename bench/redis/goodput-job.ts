/** What bench/redis-goodput.ts and its worker processes say to each other over IPC. */
import type { Take } from "../../test/redis/served-order.js";

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
  /** What each of its booking calls took, in Redis' order (test/redis/served-order.ts); none in memory. */
  readonly takes: readonly Take[];
  /** 429s this process received. */
  readonly rejected: number;
  /** Distinct warnings the limiter reported (a store outage, a refused write). */
  readonly warnings: readonly string[];
}

export type FromGoodputWorker = { readonly type: "ready" } | { readonly type: "done"; readonly report: GoodputReport };
