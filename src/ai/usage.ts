import type { Usage } from "../core/limits.js";
import type { ModelUsage } from "./types.js";

/** A token count the provider reported: a finite number >= 0, else `undefined`. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && value >= 0 && Number.isFinite(value) ? value : undefined;
}

/**
 * The usage to settle from the AI SDK's: input and output tokens, cache reads left out of the input unless
 * `countCacheReads` (`inputTokens.total` includes them), and of the input settled, the cache reads and writes
 * (`cachedInput`, `cacheWrite`, for the quotas' prices). `undefined` unless both totals were reported: the
 * estimate then stands.
 */
export function settledUsage(usage: ModelUsage | undefined, countCacheReads: boolean): Usage | undefined {
  const input = count(usage?.inputTokens?.total);
  const output = count(usage?.outputTokens?.total);
  if (input === undefined || output === undefined) return undefined;
  const reads = Math.min(count(usage?.inputTokens?.cacheRead) ?? 0, input);
  const fresh = countCacheReads ? input : input - reads;
  // Cache reads and writes priced apart (`prices.cachedInput`, `cacheWrite`), as parts of the input settled.
  const cachedInput = countCacheReads ? reads : 0;
  const cacheWrite = Math.min(count(usage?.inputTokens?.cacheWrite) ?? 0, fresh - cachedInput);
  return withCache({ input: fresh, output }, cachedInput, cacheWrite);
}

/** `usage` with its cache counts, each only where above 0. */
function withCache(usage: { input: number; output: number }, cachedInput: number, cacheWrite: number): Usage {
  if (cachedInput > 0 && cacheWrite > 0) return { ...usage, cachedInput, cacheWrite };
  if (cachedInput > 0) return { ...usage, cachedInput };
  return cacheWrite > 0 ? { ...usage, cacheWrite } : usage;
}
