import type { Usage } from "../core/limits.js";
import type { ModelUsage } from "./types.js";

/** A token count the provider reported: a finite number >= 0, else `undefined`. */
function count(value: unknown): number | undefined {
  return typeof value === "number" && value >= 0 && Number.isFinite(value) ? value : undefined;
}

/**
 * The usage to settle from the AI SDK's: input and output tokens, cache reads left out of the input unless
 * `countCacheReads` (`inputTokens.total` includes them). `undefined` unless both totals were reported: the
 * estimate then stands.
 */
export function settledUsage(usage: ModelUsage | undefined, countCacheReads: boolean): Usage | undefined {
  const input = count(usage?.inputTokens?.total);
  const output = count(usage?.outputTokens?.total);
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = countCacheReads ? 0 : (count(usage?.inputTokens?.cacheRead) ?? 0);
  return { input: Math.max(0, input - cacheRead), output };
}
