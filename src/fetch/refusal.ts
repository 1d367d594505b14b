import {
  LimiterError,
  MAX_REPORTED_WAIT_MS,
  QueueFullError,
  RequestTooLargeError,
  WaitTimeoutError,
} from "../core/errors.js";

/** The response header naming the code of a refusal the limiter answered itself, e.g. `REQUEST_TOO_LARGE`. */
export const LIMITER_ERROR_HEADER = "x-llm-limiter-error";

/** The `type` of a refusal's error object, beside the providers' `invalid_request_error` and `rate_limit_error`. */
const ERROR_TYPE = "llm_limiter_error";

/**
 * The longest retry hint a refusal invites a retry on: the AI SDK takes no longer `retry-after-ms` and LangChain
 * stops at a longer `retry-after`; a longer wait (a spent daily budget) is answered `x-should-retry: false`.
 */
export const MAX_RETRY_HINT_MS = 60_000;

/** The hint when the wait cannot be timed (a slot, the requests ahead, the store): about an SDK's first backoff. */
export const UNTIMED_RETRY_HINT_MS = 1_000;

/** Each refusal's status: 413 and 400 no SDK retries, 429 each does (a wait past `maxWaitMs`, where waiting helps). */
const STATUS = { REQUEST_TOO_LARGE: 413, QUEUE_FULL: 400, LIMITER_CLOSED: 400, WAIT_TIMEOUT: 429 } as const;

type RefusalCode = keyof typeof STATUS;

/**
 * The response a provider gives a request it will not serve, for a limiter's refusal to admit one: a JSON body
 * both SDK dialects read (`error.message` for OpenAI's, the top-level `message` for Anthropic's SDK, `error.message`
 * for the AI SDK's Anthropic provider), `x-should-retry: false` but for a wait that a retry may outlast, and no
 * rate-limit header: it never reached the provider, and nothing syncs it. `undefined` for any other error, which
 * the fetch rejects with (an abort's reason, a bad priority).
 */
export function refusalResponse(error: unknown): Response | undefined {
  // Own keys only: a value branded by another copy of the package may carry any string as its code.
  if (!(error instanceof LimiterError) || !Object.hasOwn(STATUS, error.code)) return undefined;
  const code = error.code as RefusalCode;
  const message = `llm-limiter: ${error.message}`;
  const headers = new Headers({ "content-type": "application/json", [LIMITER_ERROR_HEADER]: code });
  if (error instanceof WaitTimeoutError) retryHint(error, headers);
  else headers.set("x-should-retry", "false");
  const body = {
    type: "error",
    message,
    error: { type: ERROR_TYPE, code, message, param: null, ...detailsOf(error), details: { error_code: code } },
  };
  return new Response(JSON.stringify(body), { status: STATUS[code], headers });
}

/** What the body tells of the refusal besides its message: the budget and the cost, the queue's bound, the wait. */
function detailsOf(error: LimiterError): Record<string, unknown> {
  if (error instanceof RequestTooLargeError) {
    const { dimension, cost, capacity, headroom } = error;
    return { dimension, cost, capacity, headroom };
  }
  if (error instanceof QueueFullError) return { max_queue: error.maxQueue };
  if (error instanceof WaitTimeoutError) {
    const { dimension, waitMs, maxWaitMs, availableAt } = error;
    return {
      dimension,
      wait_ms: Number.isFinite(waitMs) ? Math.ceil(waitMs) : null,
      max_wait_ms: maxWaitMs,
      available_at: availableAt === undefined ? null : new Date(availableAt).toISOString(),
    };
  }
  return {};
}

/**
 * `retry-after-ms` and `retry-after` until the binding budget has room (`availableAt`, by the wall clock the SDK
 * sleeps on), at least 1 ms; {@link UNTIMED_RETRY_HINT_MS} when that is unknown. Past {@link MAX_RETRY_HINT_MS}
 * the hint says the whole wait (at most a month) and `x-should-retry: false`: a retry would only be refused again.
 */
function retryHint(error: WaitTimeoutError, headers: Headers): void {
  const untilRoom = error.availableAt === undefined ? UNTIMED_RETRY_HINT_MS : error.availableAt - Date.now();
  const ms = Math.ceil(Math.min(Math.max(untilRoom, 1), MAX_REPORTED_WAIT_MS));
  if (ms > MAX_RETRY_HINT_MS) headers.set("x-should-retry", "false");
  headers.set("retry-after-ms", String(ms));
  headers.set("retry-after", String(Math.ceil(ms / 1000)));
}
