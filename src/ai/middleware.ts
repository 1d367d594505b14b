import type { LanguageModelMiddleware } from "ai";
import type { EstimateRatios } from "../core/estimate-ratios.js";
import type { Estimate } from "../core/limits.js";
import type { Reservation } from "../core/reservation.js";
import { shown } from "../core/values.js";
import { ADMITTED_HEADER, PRIORITY_HEADER, TENANT_HEADER } from "../fetch/call-headers.js";
import type { LimiterGroup } from "../group/group.js";
import type { Limiter } from "../limiter.js";
import { failedResponse } from "./failure.js";
import { resolveMiddlewareOptions, type RateLimitMiddlewareOptions } from "./options.js";
import { promptTokens } from "./prompt.js";
import { holdUntilEnd } from "./stream.js";
import { settledUsage } from "./usage.js";
import type { GenerateResult, ModelCallParams, ModelUsage, StreamResult, WrappedModel } from "./types.js";

/**
 * What the middleware needs of a limiter: a whole call admitted (`run`), or one held over a stream (`acquire`), and
 * what it learned of the provider's prompt counts.
 */
type Admitter = Pick<Limiter, "run" | "acquire"> & { readonly ratios?: EstimateRatios };

/** The built-in estimate of a call, and where its usage teaches how the provider counts the prompt. */
interface OwnEstimate {
  readonly estimate: Estimate;
  /** The prompt as counted here, before the correction; `undefined` for the caller's own `estimate`. */
  readonly estimatedInput: number | undefined;
}

/** A call's priority and tenant, as its headers named them (the headers are stripped before the call is sent). */
interface CallTerms {
  readonly priority: string | undefined;
  readonly tenant: string | undefined;
}

/**
 * A middleware for the AI SDK's `wrapLanguageModel` that keeps every call of the wrapped model inside the
 * limiter's budgets, whatever the provider:
 *
 * - it estimates the call from its parameters (the prompt counted by characters, `maxOutputTokens`), the prompt
 *   corrected by what the limiter learned of the provider's counts for the model (`usage.inputTokens.total` of
 *   every call teaches it; docs/estimates.md), and waits for admission; aborting the call's `abortSignal` takes it
 *   out of the queue;
 * - it syncs the limiter from the response's rate-limit headers, and from a failed call's (a 429 included, so an
 *   AI SDK retry waits for admission like any other call);
 * - it settles the usage the result reports, or for a stream its `finish` part, and releases when the call
 *   ends: for a stream, when it closes, errors or is cancelled (without a `finish` part the estimate stands).
 *
 * Each attempt of the AI SDK's own retries (`maxRetries`) is admitted and counted. The calls it admits carry the
 * request header `x-llm-limiter-admitted`, so a `limiter.fetch()` under the provider does not count them again.
 * With a {@link LimiterGroup}, each call is admitted by the member named by the model's id. A call's
 * `x-llm-limiter-priority` and `x-llm-limiter-tenant` headers (`headers` of `generateText`) name its
 * priority and tenant in place of the options', and are not sent.
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
  limiter: Limiter | LimiterGroup,
  options: RateLimitMiddlewareOptions = {},
): LanguageModelMiddleware {
  const limiterFor = limiterOfModel(limiter);
  const settings = resolveMiddlewareOptions(options);
  // Keyed by the params object transformParams returns, which the AI SDK hands to wrapGenerate / wrapStream.
  const terms = new WeakMap<ModelCallParams, CallTerms>();
  const admission = (params: ModelCallParams) => {
    const named = terms.get(params);
    return {
      signal: params.abortSignal,
      priority: named?.priority ?? settings.priority,
      tenant: named?.tenant ?? settings.tenant,
    };
  };
  const estimateOf = (params: ModelCallParams, model: WrappedModel, admitter: Admitter): OwnEstimate => {
    if (settings.estimate) return { estimate: settings.estimate(params, model), estimatedInput: undefined };
    const estimatedInput = promptTokens(params);
    const input = admitter.ratios?.corrected(model.provider, model.modelId, estimatedInput) ?? estimatedInput;
    return { estimate: { input, output: params.maxOutputTokens ?? settings.defaultMaxOutputTokens }, estimatedInput };
  };
  /** Teaches the limiter the provider's count of the prompt: the AI SDK's input total has cache reads and writes. */
  const learn = (admitter: Admitter, model: WrappedModel, own: OwnEstimate, usage: ModelUsage | undefined): void => {
    if (own.estimatedInput === undefined) return;
    admitter.ratios?.learn(model.provider, model.modelId, own.estimatedInput, usage?.inputTokens?.total);
  };

  return {
    specificationVersion: "v3",
    // Every call that reaches the provider through here was admitted here.
    transformParams: async ({ params }) => {
      const headers: Record<string, string | undefined> = { [ADMITTED_HEADER]: "1" };
      let priority: string | undefined;
      let tenant: string | undefined;
      for (const [name, value] of Object.entries(params.headers ?? {})) {
        const lower = name.toLowerCase();
        if (lower === PRIORITY_HEADER) priority = value;
        else if (lower === TENANT_HEADER) tenant = value;
        else headers[name] = value;
      }
      const transformed = { ...params, headers };
      terms.set(transformed, { priority, tenant });
      return transformed;
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const countCacheReads = settings.countCacheReads(model);
      const admitter = limiterFor(model);
      const own = estimateOf(params, model, admitter);
      return admitter.run(
        own.estimate,
        async (reservation) => {
          let result: GenerateResult;
          try {
            result = await doGenerate();
          } catch (error) {
            return failed(reservation, error);
          }
          if (result.response?.headers) reservation.sync(result.response.headers);
          learn(admitter, model, own, result.usage);
          return { value: result, used: settledUsage(result.usage, countCacheReads) };
        },
        admission(params),
      );
    },
    async wrapStream({ doStream, params, model }) {
      const countCacheReads = settings.countCacheReads(model);
      const admitter = limiterFor(model);
      const own = estimateOf(params, model, admitter);
      const reservation = await admitter.acquire(own.estimate, admission(params));
      let result: StreamResult;
      try {
        result = await doStream();
      } catch (error) {
        reservation.release();
        return failed(reservation, error);
      }
      // A stream's headers leave before its answer: they show the estimate charged, so they apply at once.
      if (result.response?.headers) reservation.sync(result.response.headers);
      const stream = holdUntilEnd(result.stream, reservation, (usage) => {
        learn(admitter, model, own, usage);
        return settledUsage(usage, countCacheReads);
      });
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

/** The limiter that admits a model's calls: the one limiter, or the group's member named by the model's id. */
function limiterOfModel(limiter: Limiter | LimiterGroup): (model: WrappedModel) => Admitter {
  const candidate = limiter as Partial<Admitter & Pick<LimiterGroup, "for">> | null | undefined;
  if (typeof candidate?.for === "function" && typeof candidate.run === "function") {
    const group = limiter as LimiterGroup;
    return (model) => group.for(model.modelId);
  }
  if (typeof candidate?.run !== "function" || typeof candidate.acquire !== "function") {
    throw new TypeError(`rateLimitMiddleware(): limiter must be a Limiter or a LimiterGroup, got ${shown(limiter)}`);
  }
  const one = limiter as Limiter;
  return () => one;
}
