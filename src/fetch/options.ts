import type { Estimate } from "../core/limits.js";
import type { Endpoint, ImageSize, Tokenizer } from "../estimate/types.js";

/** What an `estimate` override is told about the request besides its body. */
export interface FetchRequestInfo {
  /** The request's URL. */
  readonly url: URL;
  /** The endpoint its path names, `undefined` for one the default estimate does not read. */
  readonly endpoint: Endpoint | undefined;
  /** The body's `model`, else Azure's deployment from the path. */
  readonly model: string | undefined;
}

/**
 * Options of `limiter.fetch()`.
 *
 * @example
 * ```ts
 * import OpenAI from "openai";
 * import { Limiter } from "llm-limiter";
 *
 * const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
 * const openai = new OpenAI({ fetch: limiter.fetch({ defaultMaxTokens: 2048 }), maxRetries: 2 });
 * ```
 */
export interface FetchOptions {
  /**
   * The fetch that sends each request once admitted.
   * @default `globalThis.fetch`, read at call time
   */
  fetch?: typeof globalThis.fetch;
  /**
   * Replaces the default estimate of a JSON body (`estimateRequest`, its prompt corrected by what the
   * limiter learned of the provider's counts: see docs/estimates.md). Called for every JSON `POST`
   * body, `info.endpoint` undefined where the path names none the default reads. An estimate of the
   * caller's own is neither corrected nor learned from.
   * @default `estimateRequest` with this object's `tokenizer`, `defaultMaxTokens` and `imageSize`
   */
  estimate?: (body: Record<string, unknown>, info: FetchRequestInfo) => Estimate;
  /**
   * The output reserved for a body that names no output cap.
   * @default 4096
   */
  defaultMaxTokens?: number;
  /**
   * Counts the tokens of each text of the body, e.g. `countTokens` of the optional peer `gpt-tokenizer`. Its counts
   * are the caller's own: neither corrected nor learned from.
   * @default `undefined`: a character-class count, no tokenizer
   */
  tokenizer?: Tokenizer;
  /**
   * The size assumed for an image whose size the request does not show (a URL).
   * @default `undefined`: the size the provider's rule charges most for
   */
  imageSize?: ImageSize;
  /**
   * Whether Anthropic's `cache_read_input_tokens` settle against input budgets. Anthropic's rate limits
   * do not count them toward ITPM on most current models; set `true` for a model whose limits do.
   * @default false
   */
  countCacheReads?: boolean;
  /**
   * Add `stream_options: { include_usage: true }` to an OpenAI chat stream that does not ask for it,
   * so the stream settles on its usage, and hide that usage chunk from the caller. Set `false` for an
   * OpenAI-compatible API that refuses the option; such a stream's estimate then stands.
   * @default true
   */
  streamUsage?: boolean;
  /**
   * The priority class of every request through this fetch (one of the limiter's `priorities`); a request's
   * `x-llm-limiter-priority` header (`PRIORITY_HEADER`) names another for that call, and is stripped.
   * @default `undefined`: the limiter's `defaultPriority`
   */
  priority?: string;
  /**
   * Whom every request through this fetch is for (see `tenant` on `run`); a request's
   * `x-llm-limiter-tenant` header (`TENANT_HEADER`) names another for that call, and is stripped.
   * @default `undefined`: the calls share as one tenant
   */
  tenant?: string;
}
