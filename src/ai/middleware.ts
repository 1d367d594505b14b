import type { LanguageModelMiddleware } from "ai";
import type { Estimate } from "../core/limits.js";
import type { Reservation } from "../core/reservation.js";
import { shown } from "../core/values.js";
import { ADMITTED_HEADER } from "../fetch/admitted-header.js";
import type { Limiter } from "../limiter.js";
import { failedResponse } from "./failure.js";
import { resolveMiddlewareOptions, type RateLimitMiddlewareOptions } from "./options.js";
import { promptTokens } from "./prompt.js";
import { holdUntilEnd } from "./stream.js";
import { settledUsage } from "./usage.js";
import type { GenerateResult, ModelCallParams, StreamResult, WrappedModel } from "./types.js";

/** What the middleware needs of a limiter: a whole call admitted (`run`), or one held over a stream (`acquire`). */
type Admitter = Pick<Limiter, "run" | "acquire">;

/**
 * A middleware for the AI SDK's `wrapLanguageModel` that keeps every call of the wrapped model inside the
 * limiter's budgets, whatever the provider:
 *
 * - it estimates the call from its parameters (the prompt counted by characters, `maxOutputTokens`) and waits
 *   for admission; aborting the call's `abortSignal` takes it out of the queue;
 * - it syncs the limiter from the response's rate-limit headers, and from a failed call's (a 429 included, so an
 *   AI SDK retry waits for admission like any other call);
 * - it settles the usage the result reports, or for a stream its `finish` part, and releases when the call
 *   ends: for a stream, when it closes, errors or is cancelled (without a `finish` part the estimate stands).
 *
 * Each attempt of the AI SDK's own retries (`maxRetries`) is admitted and counted. The calls it admits carry the
 * request header `x-llm-limiter-admitted`, so a `limiter.fetch()` under the provider does not count them again.
 *
 * @example
 * ```ts
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { generateText, wrapLanguageModel } from "ai";
 * import { Limiter } from "llm-limiter";
 * import { rateLimitMiddleware } from "llm-limiter/ai";
 *
 * const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
 * const model = wrapLanguageModel({
 *   model: createOpenAI().chat("gpt-4o-mini"),
 *   middleware: rateLimitMiddleware(limiter),
 * });
 * const { text } = await generateText({ model, prompt: "Why do token buckets refill?", maxOutputTokens: 512 });
 * ```
 */
export function rateLimitMiddleware(
  limiter: Limiter,
  options: RateLimitMiddlewareOptions = {},
): LanguageModelMiddleware {
  const limiterFor = limiterOfModel(limiter);
  const settings = resolveMiddlewareOptions(options);
  const estimateOf = (params: ModelCallParams, model: WrappedModel): Estimate =>
    settings.estimate
      ? settings.estimate(params, model)
      : { input: promptTokens(params), output: params.maxOutputTokens ?? settings.defaultMaxOutputTokens };

  return {
    specificationVersion: "v3",
    // Every call that reaches the provider through here was admitted here.
    transformParams: async ({ params }) => ({ ...params, headers: { ...params.headers, [ADMITTED_HEADER]: "1" } }),
    async wrapGenerate({ doGenerate, params, model }) {
      const countCacheReads = settings.countCacheReads(model);
      return limiterFor(model).run(
        estimateOf(params, model),
        async (reservation) => {
          let result: GenerateResult;
          try {
            result = await doGenerate();
          } catch (error) {
            return failed(reservation, error);
          }
          if (result.response?.headers) reservation.sync(result.response.headers);
          return { value: result, used: settledUsage(result.usage, countCacheReads) };
        },
        { signal: params.abortSignal },
      );
    },
    async wrapStream({ doStream, params, model }) {
      const countCacheReads = settings.countCacheReads(model);
      const reservation = await limiterFor(model).acquire(estimateOf(params, model), { signal: params.abortSignal });
      let result: StreamResult;
      try {
        result = await doStream();
      } catch (error) {
        reservation.release();
        return failed(reservation, error);
      }
      // A stream's headers leave before its answer: they show the estimate charged, so they apply at once.
      if (result.response?.headers) reservation.sync(result.response.headers);
      const stream = holdUntilEnd(result.stream, reservation, (usage) => settledUsage(usage, countCacheReads));
      return { ...result, stream };
    },
  };
}

/** Syncs a failed call's response into the limiter (a 429 pauses admission for its hint), then rethrows. */
function failed(reservation: Reservation, error: unknown): never {
  const response = failedResponse(error);
  if (response) reservation.sync(response.headers, response.options);
  throw error;
}

/**
 * The limiter that admits a model's calls. One limiter serves every model today; a limiter per model id (a
 * group's member) fits in here.
 */
function limiterOfModel(limiter: Limiter): (model: WrappedModel) => Admitter {
  const candidate = limiter as Partial<Admitter> | null | undefined;
  if (typeof candidate?.run !== "function" || typeof candidate.acquire !== "function") {
    throw new TypeError(`rateLimitMiddleware(): limiter must be a Limiter, got ${shown(limiter)}`);
  }
  return () => limiter;
}
