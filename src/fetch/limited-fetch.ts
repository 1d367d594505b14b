import type { EstimateRatios } from "../core/estimate-ratios.js";
import type { Estimate } from "../core/limits.js";
import type { Reservation } from "../core/reservation.js";
import { deploymentOfUrl, endpointOfUrl } from "../estimate/endpoint.js";
import { estimateBody } from "../estimate/estimate-request.js";
import type { Endpoint } from "../estimate/types.js";
import type { FetchHost, PickAdmitter } from "./admitter.js";
import { resolveFetchOptions, type FetchSettings } from "./settings.js";
import type { FetchOptions } from "./options.js";
import { readRequest, withBody, type ReadRequest } from "./request.js";
import { refusalResponse } from "./refusal.js";
import { track } from "./track.js";

/** A request that only counts one request: nothing in it to estimate. */
const REQUEST_ONLY: Estimate = { input: 0, output: 0 };

/** What one request is admitted on and how its response is read. */
interface Plan {
  readonly endpoint: Endpoint | undefined;
  readonly model: string | undefined;
  readonly estimate: Estimate;
  readonly init: RequestInit | undefined;
  /** The usage chunk was asked for by the wrapper, not the caller: hide it. */
  readonly hideUsageChunk: boolean;
  /** The prompt as the library estimated it, before any correction; `undefined` where the estimate is the caller's. */
  readonly estimatedInput: number | undefined;
}

/**
 * A `fetch` that admits each request through the limiter `pick` returns for its model: it
 * estimates the JSON body, waits for admission (the caller's signal aborts the wait; a refusal answers as a
 * provider's, see `refusalResponse`), sends,
 * syncs every attempt's headers and settles the response's usage, holding the reservation
 * until its body is read (see `track`). `Limiter.fetch` passes a picker that returns the limiter itself,
 * and itself as `host`, which checks the options' `priority` at once and takes the warnings.
 */
export function limitedFetch(pick: PickAdmitter, options?: FetchOptions, host?: FetchHost): typeof globalThis.fetch {
  const settings = resolveFetchOptions(options, host);
  return async (input, init) => {
    const request = await readRequest(input, init);
    const send = settings.fetch ?? globalThis.fetch;
    if (request.admitted) return send(request.input, request.init);
    const plan = planOf(request, settings);
    const admitter = pick(plan.model);
    if (!admitter) return send(request.input, request.init);
    const ratios = plan.estimatedInput === undefined ? undefined : admitter.ratios;
    const estimate = ratios ? corrected(plan, ratios) : plan.estimate;
    let reservation: Reservation;
    try {
      reservation = await admitter.acquire(estimate, {
        signal: request.signal,
        priority: request.priority ?? settings.priority,
        tenant: request.tenant ?? settings.tenant,
      });
    } catch (error) {
      // An abort rejects as an abort; a refusal answers as a provider's refusal, so the SDK shows it as one.
      const refusal = error === request.signal?.reason ? undefined : refusalResponse(error);
      if (refusal) return refusal;
      throw error;
    }
    let response: Response;
    try {
      response = await send(request.input, plan.init);
    } catch (error) {
      // It may have reached the provider: the estimate stands.
      reservation.release();
      throw error;
    }
    return track(reservation, response, { ...plan, signal: request.signal, ratios }, settings);
  };
}

/** The plan's estimate with its prompt multiplied by what `ratios` learned for its endpoint and model. */
function corrected(plan: Plan, ratios: EstimateRatios): Estimate {
  const { estimate, endpoint, model } = plan;
  if (typeof estimate === "number" || endpoint === undefined) return estimate;
  return { input: ratios.corrected(endpoint, model, estimate.input), output: estimate.output };
}

function planOf(request: ReadRequest, settings: FetchSettings): Plan {
  const { body, url } = request;
  const endpoint = url && body ? endpointOfUrl(url) : undefined;
  const model = typeof body?.model === "string" ? body.model : url && deploymentOfUrl(url);
  const plain = { endpoint, model, init: request.init, hideUsageChunk: false, estimatedInput: undefined };
  if (!body || !url) return { ...plain, estimate: REQUEST_ONLY };
  const own = settings.estimate === undefined && endpoint !== undefined;
  const estimate = settings.estimate
    ? settings.estimate(body, { url, endpoint, model })
    : endpoint
      ? estimateBody(body, endpoint, settings.counting)
      : REQUEST_ONLY;
  const estimatedInput = own && settings.learns && typeof estimate === "object" ? estimate.input : undefined;
  const planned = { ...plain, estimate, estimatedInput };
  if (!wantsUsageChunk(body, endpoint, request.rewritable, settings)) return planned;
  const streamOptions = typeof body.stream_options === "object" ? body.stream_options : {};
  const rewritten = { ...body, stream_options: { ...streamOptions, include_usage: true } };
  return { ...planned, init: withBody(request.init, rewritten), hideUsageChunk: true };
}

/** An OpenAI chat stream that did not ask for its usage chunk, which the wrapper may add. */
function wantsUsageChunk(
  body: Record<string, unknown>,
  endpoint: Endpoint | undefined,
  rewritable: boolean,
  settings: FetchSettings,
): boolean {
  if (endpoint !== "chat.completions" || body.stream !== true || !settings.streamUsage || !rewritable) return false;
  const streamOptions = body.stream_options as { include_usage?: unknown } | null | undefined;
  return streamOptions?.include_usage !== true;
}
