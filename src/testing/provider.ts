import type { AnthropicMessage } from "./anthropic-format.js";
import { arrive } from "./arrival.js";
import { delay } from "./delay.js";
import type { ProviderStats, ResponseHeaders } from "./engine.js";
import { ProviderEngine } from "./engine.js";
import type { Dialect, SimulatedDialect } from "./dialects.js";
import type { DimensionName } from "./dimensions.js";
import type { ListenOptions, ProviderServer } from "./http.js";
import { serve } from "./http.js";
import type { OpenAIChatCompletion } from "./openai-format.js";
import type { ProviderOptions } from "./options.js";
import { resolveOptions } from "./options.js";
import type { RateLimitedBody } from "./rejection-bodies.js";
import { rateLimitedBody } from "./rejection-bodies.js";
import { WIRE_FORMATS } from "./wire-formats.js";

/** One in-process call. */
export interface CallRequest {
  /** Prompt (input) tokens, a non-negative integer. */
  prompt: number;
  /** The output cap, `max_tokens`, a positive integer. */
  maxTokens: number;
  /** The answer's length, 0..maxTokens. Default: `answerTokens`, else the seeded draw. */
  actual?: number;
  /** Model name echoed in the body. Default `"simulated-model"`. */
  model?: string;
}

/**
 * Token usage of a served call.
 * @inline
 */
export interface CallUsage {
  /** Prompt (input) tokens. */
  promptTokens: number;
  /** Answer (output) tokens. */
  completionTokens: number;
}

/**
 * What a call got back: the status, the headers as sent (rate-limit headers
 * stamped as `stampHeaders` says; `retry-after` and `retry-after-ms` on a
 * 429 that can ever succeed, where the dialect sends them) and the JSON body
 * the HTTP server would send, in the Anthropic Messages shape for the
 * `"anthropic"` dialect and the OpenAI chat-completions shape otherwise; a
 * 429 of a dialect that sends no rate-limit headers has that provider's body.
 */
export type CallResult<Rejected = RateLimitedBody<Dialect>> =
  | {
      /** HTTP status: 200, the call was served. */
      status: 200;
      /** Response headers by lower-case name: `date`, a request id, the rate-limit headers (when: `stampHeaders`). */
      headers: ResponseHeaders;
      /** The tokens the call used. */
      usage: CallUsage;
      /** The answer: a `chat.completion` or a Messages API message. */
      body: OpenAIChatCompletion | AnthropicMessage;
    }
  | {
      /** HTTP status: 429, the call was rate-limited. */
      status: 429;
      /**
       * Response headers by lower-case name: `date`, a request id, the rate-limit headers, and `retry-after`
       * (seconds) and `retry-after-ms` when the call can ever succeed (what the dialect sends instead, if it
       * sends no rate-limit headers: see {@link Dialect}).
       */
      headers: ResponseHeaders;
      /** The provider's rate-limit error body, in the dialect's shape (see {@link RateLimitedBody}). */
      body: Rejected;
    };

/**
 * A simulated LLM provider that meters calls as a real one does; `Rejected` is the body of its 429s.
 */
export interface SimulatedProvider<Rejected = RateLimitedBody<Dialect>> {
  /**
   * Admits or rejects the call when it arrives: without an arrival delay at
   * once (synchronously, on the first line, so calls made in the same tick are
   * decided in order), else `arrivalDelayMs` later. An admitted call then
   * resolves after its latency, when it is reconciled; a 429 resolves when it
   * is decided. Rejects with `TypeError`/`RangeError` for an invalid request.
   */
  call(request: CallRequest): Promise<CallResult<Rejected>>;
  /** Serves the provider over HTTP on 127.0.0.1 (a free port by default). */
  listen(options?: ListenOptions): Promise<ProviderServer>;
  /** Counters and per-call records since creation. */
  stats(): ProviderStats;
  /**
   * What each enforced dimension holds now, in its units (requests or tokens): a bucket's exact
   * level, not floored as the headers report it, negative while an under-estimate is repaid.
   */
  levels(): Partial<Record<DimensionName, number>>;
  /**
   * How many calls of this size would be admitted now, one after another (the concurrency cap
   * included); takes nothing. `Infinity` when such a call costs nothing anywhere.
   */
  roomFor(request: Pick<CallRequest, "prompt" | "maxTokens">): number;
}

const DEFAULT_MODEL = "simulated-model";

/**
 * Creates a simulated provider.
 *
 * @example
 * const provider = createProvider({
 *   rpm: 500, tpm: 200_000, dialect: "openai",
 *   latencyMs: (call) => 300 + 15 * call.actual,
 * });
 * const result = await provider.call({ prompt: 800, maxTokens: 512, actual: 240 });
 */
export function createProvider<D extends SimulatedDialect = Dialect>(
  options?: ProviderOptions<D>,
): SimulatedProvider<RateLimitedBody<D>> {
  const engine = new ProviderEngine(resolveOptions(options));
  const wire = WIRE_FORMATS[engine.options.dialect === "anthropic" ? "messages" : "chat.completions"];
  return {
    async call(request) {
      checkCallRequest(request);
      const model = request.model ?? DEFAULT_MODEL;
      const sized = { model, prompt: request.prompt, maxTokens: request.maxTokens, stream: false, includeUsage: false };
      const admission = await arrive(engine, { ...request, model, stream: false, body: undefined }, true);
      if (!admission.admitted) {
        const context = { model, wallNow: engine.options.clock.wallNow() };
        // The engine runs the dialect of `options`, so the body is that dialect's.
        const body = rateLimitedBody(engine.options.dialect, admission.rejection, context, wire.rateLimited);
        return { status: 429, headers: admission.headers, body: body as RateLimitedBody<D> };
      }
      const { call } = admission;
      await delay(call.latencyMs);
      const headers = call.complete();
      const { completion } = call;
      return {
        status: 200,
        headers,
        usage: { promptTokens: completion.promptTokens, completionTokens: completion.outputTokens },
        body: wire.body(completion, sized),
      };
    },
    listen: (listenOptions) => serve(engine, listenOptions),
    stats: () => engine.stats(),
    levels: () => engine.levels(),
    roomFor: (request) => engine.roomFor(request),
  };
}

function checkCallRequest(request: CallRequest): void {
  if (typeof request !== "object" || request === null) throw new TypeError("call: request must be an object");
  integerAtLeast("prompt", request.prompt, 0);
  integerAtLeast("maxTokens", request.maxTokens, 1);
  if (request.actual !== undefined) {
    integerAtLeast("actual", request.actual, 0);
    if (request.actual > request.maxTokens) {
      throw new RangeError(`call: actual (${request.actual}) must not exceed maxTokens (${request.maxTokens})`);
    }
  }
  if (request.model !== undefined && typeof request.model !== "string") {
    throw new TypeError(`call: model must be a string, got ${typeof request.model}`);
  }
}

function integerAtLeast(name: string, value: unknown, min: number): void {
  if (typeof value !== "number") throw new TypeError(`call: ${name} must be a number, got ${typeof value}`);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`call: ${name} must be an integer >= ${min}, got ${value}`);
  }
}
