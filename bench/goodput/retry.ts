/** The one retry rule every client follows: on a 429, wait what the provider says, then try again. */
import type { CallRequest, CallResult, RateLimitedBody, SimulatedProvider } from "../../src/testing/index.js";
import type { ResponseHeaders } from "../../src/testing/engine.js";

/** Retries after the first attempt, for every library (llm-limiter: `retry: { attempts }`). */
export const RETRIES = 20;

/** A 429 without a hint (never sent by the simulator for a call that can fit) waits a second. */
const NO_HINT_MS = 1_000;

/** `retry-after-ms`, else `retry-after` seconds: the order the official SDKs read them in. */
function retryAfterMs(headers: ResponseHeaders): number {
  const ms = Number(headers["retry-after-ms"]);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = Number(headers["retry-after"]);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : NO_HINT_MS;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Calls until served or the retries run out, as the official SDKs retry
 * (`maxRetries: 20`); resolves to the last response.
 */
export async function callWithRetries<R = RateLimitedBody>(
  provider: SimulatedProvider<R>,
  request: CallRequest,
): Promise<CallResult<R>> {
  for (let i = 0; ; i++) {
    const result = await provider.call(request);
    if (result.status === 200 || i === RETRIES) return result;
    await sleep(retryAfterMs(result.headers));
  }
}
