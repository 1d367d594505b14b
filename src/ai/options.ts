import type { Estimate } from "../core/limits.js";
import { notANumber, plainObject, shown, unknownOption } from "../core/values.js";
import type { ModelCallParams, WrappedModel } from "./types.js";

/**
 * Options of {@link rateLimitMiddleware}.
 *
 * @example
 * ```ts
 * import { Limiter } from "llm-limiter";
 * import { rateLimitMiddleware } from "llm-limiter/ai";
 *
 * const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
 * // Calls that set no maxOutputTokens reserve 1,024 output tokens.
 * const middleware = rateLimitMiddleware(limiter, { defaultMaxOutputTokens: 1_024 });
 * ```
 */
export interface RateLimitMiddlewareOptions {
  /**
   * Output tokens reserved at admission for a call that sets no `maxOutputTokens`. The provider's own default
   * may be higher (the Anthropic provider sends the model's maximum as `max_tokens`): set `maxOutputTokens` on
   * calls to a provider that charges `max_tokens` at admission. The call's usage settles the reservation either way.
   * @default 4096
   */
  defaultMaxOutputTokens?: number;
  /**
   * What a call costs at admission, in place of the built-in estimate: a number (total tokens) or
   * `{ input, output }`, as the limiter's budgets need (see `Estimate`).
   * @default `undefined`: the prompt counted by characters (system prompt, messages, tools; files and images
   * 1,600 tokens each) as `input`, and `maxOutputTokens`, else `defaultMaxOutputTokens`, as `output`
   */
  estimate?: (params: ModelCallParams, model: WrappedModel) => Estimate;
  /**
   * Whether cached input tokens the call read (`usage.inputTokens.cacheRead`) count in the usage it settles.
   * Anthropic's ITPM does not count cache reads on most models (docs.anthropic.com/en/api/rate-limits); OpenAI's
   * TPM counts a cached prompt like any other.
   * @default `false` for a model whose `provider` names Anthropic (`anthropic.messages`,
   * `vertex.anthropic.messages`), else `true`
   */
  countCacheReads?: boolean;
  /**
   * The priority class of every call through the middleware (one of the limiter's `priorities`); a call's
   * `x-llm-limiter-priority` header names another for that call.
   * @default `undefined`: the limiter's `defaultPriority`
   */
  priority?: string;
  /**
   * Whom every call through the middleware is for (see `tenant` on `run`); a call's `x-llm-limiter-tenant`
   * header names another for that call.
   * @default `undefined`: the calls share as one tenant
   */
  tenant?: string;
}

/** The middleware's options with their defaults, checked. */
export interface ResolvedMiddlewareOptions {
  readonly defaultMaxOutputTokens: number;
  readonly estimate: ((params: ModelCallParams, model: WrappedModel) => Estimate) | undefined;
  readonly countCacheReads: (model: WrappedModel) => boolean;
  readonly priority: string | undefined;
  readonly tenant: string | undefined;
}

const KEYS: readonly (keyof RateLimitMiddlewareOptions)[] = [
  "defaultMaxOutputTokens",
  "estimate",
  "countCacheReads",
  "priority",
  "tenant",
];

/** What a call without `maxOutputTokens` reserves of output, unless told otherwise. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

/** Anthropic's ITPM leaves cache reads out; elsewhere a cached token is a token. */
const countsCacheReads = (model: WrappedModel): boolean => !model.provider.includes("anthropic");

/** Validates the middleware's options: TypeError for a wrong type or an unknown key, RangeError out of range. */
export function resolveMiddlewareOptions(options: RateLimitMiddlewareOptions): ResolvedMiddlewareOptions {
  const given = plainObject("rateLimitMiddleware() options", options);
  for (const key of Object.keys(given)) {
    if (!(KEYS as readonly string[]).includes(key)) throw unknownOption("rateLimitMiddleware()", key, KEYS);
  }
  const { defaultMaxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS, estimate, countCacheReads, priority, tenant } = options;
  if (typeof defaultMaxOutputTokens !== "number") throw notANumber("defaultMaxOutputTokens", defaultMaxOutputTokens);
  if (!Number.isInteger(defaultMaxOutputTokens) || defaultMaxOutputTokens < 0) {
    throw new RangeError(`defaultMaxOutputTokens must be an integer >= 0, got ${defaultMaxOutputTokens}`);
  }
  if (estimate !== undefined && typeof estimate !== "function") {
    throw new TypeError(`estimate must be a function, got ${shown(estimate)}`);
  }
  if (countCacheReads !== undefined && typeof countCacheReads !== "boolean") {
    throw new TypeError(`countCacheReads must be a boolean, got ${shown(countCacheReads)}`);
  }
  for (const [name, value] of [
    ["priority", priority],
    ["tenant", tenant],
  ] as const) {
    if (value !== undefined && typeof value !== "string")
      throw new TypeError(`${name} must be a string, got ${shown(value)}`);
  }
  return {
    defaultMaxOutputTokens,
    estimate,
    countCacheReads: countCacheReads === undefined ? countsCacheReads : () => countCacheReads,
    priority,
    tenant,
  };
}
