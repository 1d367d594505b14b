import type { Estimate } from "../core/limits.js";
import { countingOf } from "../estimate/estimate-request.js";
import type { Counting } from "../estimate/types.js";
import type { FetchOptions, FetchRequestInfo } from "./options.js";

/** {@link FetchOptions} checked, with what `estimateRequest` and the usage readers take. */
export interface FetchSettings {
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly estimate: ((body: Record<string, unknown>, info: FetchRequestInfo) => Estimate) | undefined;
  readonly counting: Counting;
  readonly countCacheReads: boolean;
  readonly streamUsage: boolean;
  readonly priority: string | undefined;
  readonly tenant: string | undefined;
}

/** Checks the options at once: a `TypeError` or `RangeError` names the first bad one. */
export function resolveFetchOptions(options: FetchOptions = {}): FetchSettings {
  if (typeof options !== "object" || options === null) throw new TypeError("fetch(): options must be an object");
  const { fetch, estimate, defaultMaxTokens, tokenizer, imageSize, countCacheReads, streamUsage, priority, tenant } =
    options;
  for (const [name, value] of [
    ["fetch", fetch],
    ["estimate", estimate],
    ["tokenizer", tokenizer],
  ] as const) {
    if (value !== undefined && typeof value !== "function") throw new TypeError(`fetch(): ${name} must be a function`);
  }
  for (const [name, value] of [
    ["countCacheReads", countCacheReads],
    ["streamUsage", streamUsage],
  ] as const) {
    if (value !== undefined && typeof value !== "boolean") throw new TypeError(`fetch(): ${name} must be a boolean`);
  }
  for (const [name, value] of [
    ["priority", priority],
    ["tenant", tenant],
  ] as const) {
    if (value !== undefined && typeof value !== "string") throw new TypeError(`fetch(): ${name} must be a string`);
  }
  const counting = countingOf({
    ...(defaultMaxTokens !== undefined && { defaultMaxTokens }),
    ...(tokenizer && { tokenizer }),
    ...(imageSize && { imageSize }),
  });
  return {
    fetch,
    estimate,
    counting,
    countCacheReads: countCacheReads ?? false,
    streamUsage: streamUsage ?? true,
    priority,
    tenant,
  };
}
