import type { Estimate } from "../core/limits.js";
import { unknownOption } from "../core/values.js";
import { countingOf } from "../estimate/estimate-request.js";
import type { Counting } from "../estimate/types.js";
import type { FetchHost } from "./admitter.js";
import type { FetchOptions, FetchRequestInfo } from "./options.js";
import { emitWarning } from "../core/warnings.js";

/** {@link FetchOptions} checked, with what `estimateRequest` and the usage readers take. */
export interface FetchSettings {
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly estimate: ((body: Record<string, unknown>, info: FetchRequestInfo) => Estimate) | undefined;
  readonly counting: Counting;
  /** The estimates are the library's own (no `estimate`, no `tokenizer`): they are corrected and learned from. */
  readonly learns: boolean;
  readonly countCacheReads: boolean;
  readonly streamUsage: boolean;
  readonly priority: string | undefined;
  readonly tenant: string | undefined;
  /** Where a body too large to read for its usage is told of. */
  readonly warn: (warning: Error) => void;
}

const OPTION_KEYS: readonly (keyof FetchOptions)[] = [
  "fetch",
  "estimate",
  "defaultMaxTokens",
  "tokenizer",
  "imageSize",
  "countCacheReads",
  "streamUsage",
  "priority",
  "tenant",
];

/** The host's check, its message naming `fetch()`. */
function checkPriority(host: FetchHost, priority: string): void {
  try {
    host.checkPriority(priority);
  } catch (error) {
    throw new TypeError(`fetch(): ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Checks the options at once: a `TypeError` or `RangeError` names the first bad one (an unknown option, or a
 * `priority` that is not one of `host`'s classes, is a `TypeError`).
 */
export function resolveFetchOptions(options: FetchOptions = {}, host?: FetchHost): FetchSettings {
  if (typeof options !== "object" || options === null) throw new TypeError("fetch(): options must be an object");
  for (const key of Object.keys(options)) {
    if (!(OPTION_KEYS as readonly string[]).includes(key)) throw unknownOption("fetch()", key, OPTION_KEYS);
  }
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
  if (priority !== undefined && host) checkPriority(host, priority);
  const counting = countingOf({
    ...(defaultMaxTokens !== undefined && { defaultMaxTokens }),
    ...(tokenizer && { tokenizer }),
    ...(imageSize && { imageSize }),
  });
  return {
    fetch,
    estimate,
    counting,
    learns: estimate === undefined && tokenizer === undefined,
    countCacheReads: countCacheReads ?? false,
    streamUsage: streamUsage ?? true,
    priority,
    tenant,
    warn: host ? (warning) => host.warn(warning) : emitWarning,
  };
}
