import type { Estimate } from "../core/limits.js";
import type { Reservation } from "../core/reservation.js";
import { deploymentOfUrl, endpointOfUrl } from "../estimate/endpoint.js";
import { estimateBody } from "../estimate/estimate-request.js";
import type { Endpoint } from "../estimate/types.js";
import type { PickAdmitter } from "./admitter.js";
import { resolveFetchOptions, type FetchSettings } from "./settings.js";
import type { FetchOptions } from "./options.js";
import { readRequest, withBody, type ReadRequest } from "./request.js";
import { observeSse } from "./sse.js";
import { streamUsage } from "./stream-usage.js";
import { usageOf } from "./usage.js";

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
}

/**
 * A `fetch` that admits each request through the limiter `pick` returns for its model: it
 * estimates the JSON body, waits for admission (the caller's signal aborts the wait), sends,
 * syncs every attempt's headers and settles the response's usage, holding the reservation
 * until a streamed body ends. `Limiter.fetch` passes a picker that returns the limiter itself.
 */
export function limitedFetch(pick: PickAdmitter, options?: FetchOptions): typeof globalThis.fetch {
  const settings = resolveFetchOptions(options);
  return async (input, init) => {
    const request = await readRequest(input, init);
    const send = settings.fetch ?? globalThis.fetch;
    if (request.admitted) return send(request.input, request.init);
    const plan = planOf(request, settings);
    const admitter = pick(plan.model);
    if (!admitter) return send(request.input, request.init);
    const reservation = await admitter.acquire(plan.estimate, {
      signal: request.signal,
      priority: request.priority ?? settings.priority,
      tenant: request.tenant ?? settings.tenant,
    });
    let response: Response;
    try {
      response = await send(request.input, plan.init);
    } catch (error) {
      // It may have reached the provider: the estimate stands.
      reservation.release();
      throw error;
    }
    return track(reservation, response, plan, settings);
  };
}

function planOf(request: ReadRequest, settings: FetchSettings): Plan {
  const { body, url } = request;
  const endpoint = url && body ? endpointOfUrl(url) : undefined;
  const model = typeof body?.model === "string" ? body.model : url && deploymentOfUrl(url);
  const plain = { endpoint, model, init: request.init, hideUsageChunk: false };
  if (!body || !url) return { ...plain, estimate: REQUEST_ONLY };
  const estimate = settings.estimate
    ? settings.estimate(body, { url, endpoint, model })
    : endpoint
      ? estimateBody(body, endpoint, settings.counting)
      : REQUEST_ONLY;
  if (!wantsUsageChunk(body, endpoint, request.rewritable, settings)) return { ...plain, estimate };
  const streamOptions = typeof body.stream_options === "object" ? body.stream_options : {};
  const rewritten = { ...body, stream_options: { ...streamOptions, include_usage: true } };
  return { ...plain, estimate, init: withBody(request.init, rewritten), hideUsageChunk: true };
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

/**
 * Reads the response for the reservation. A failure's headers (a 429's above all) are synced
 * before the caller sees it, so the pause is in force before an SDK's retry; a stream's at once,
 * its usage settled when it ends; a JSON body's usage is settled from a clone, then its headers
 * synced (they may already count the usage), then the reservation released.
 */
async function track(
  reservation: Reservation,
  response: Response,
  plan: Plan,
  settings: FetchSettings,
): Promise<Response> {
  const { status, headers } = response;
  const { endpoint } = plan;
  if (!response.ok || endpoint === undefined) {
    const body = response.ok ? undefined : await errorBody(response);
    reservation.sync(headers, { status, body });
    reservation.release();
    return response;
  }
  if (response.body && headers.get("content-type")?.includes("text/event-stream")) {
    reservation.sync(headers, { status });
    const usage = streamUsage(endpoint, settings, plan.hideUsageChunk);
    const body = observeSse(response.body, usage.see, () => {
      // Cut short without a usage: the estimate stands.
      if (usage.usage) settleQuietly(reservation, usage.usage);
      reservation.release();
    });
    return rebuilt(response, body);
  }
  const copy = response.clone();
  copy.json().then(
    (json: unknown) => {
      const used = usageOf(endpoint, (json as { usage?: unknown } | null)?.usage, settings);
      if (used) settleQuietly(reservation, used);
      reservation.sync(headers, { status });
      reservation.release();
    },
    () => reservation.release(),
  );
  return response;
}

function settleQuietly(reservation: Reservation, used: Estimate): void {
  try {
    reservation.settle(used);
  } catch {
    // A usage the limiter cannot take (input and output metered apart, a number given): the estimate stands.
  }
}

/** A failure's body, for its retry hint and limit type; read from a clone, so the caller still has it. */
async function errorBody(response: Response): Promise<unknown> {
  try {
    const text = await response.clone().text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  } catch {
    return undefined;
  }
}

/** The response with a new body, keeping what the SDKs read: status, headers, URL. */
function rebuilt(response: Response, body: ReadableStream<Uint8Array>): Response {
  const next = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(next, "url", { value: response.url });
  return next;
}
