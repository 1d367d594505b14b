import type { FailureParts } from "../headers/failures.js";
import { normalizeHeaders, type HeaderMap } from "../headers/normalize.js";
import type { HeaderInput, RateLimitView } from "../headers/types.js";
import type { SyncOptions } from "../options.js";

/**
 * What sync reads of a response, copied out of the caller's objects once: the headers into
 * a Map of our own (bounded work, read again at bounded cost), the options' fields as plain
 * values. Nothing after this touches the caller's objects but the body.
 */
export interface ResponseCopy {
  readonly headers: HeaderMap;
  readonly options: SyncOptions | undefined;
}

/**
 * Copies `headers` and `options` (see {@link ResponseCopy}), or returns what went wrong: a
 * throwing getter, a Proxy's trap or an iterator that throws is caught here, so that a
 * hostile input changes nothing.
 */
export function copyResponse(headers: unknown, options: unknown): ResponseCopy | Error {
  try {
    const map = normalizeHeaders(headers as HeaderInput);
    if (options === undefined || options === null) return { headers: map, options: undefined };
    const { provider, status, body } = options as SyncOptions;
    return { headers: map, options: { provider, status, body } };
  } catch (error) {
    return unreadable("the response", error);
  }
}

/**
 * The failure parts of what `fn` threw, copied behind a guard as {@link copyResponse} does: an
 * openai-node / Anthropic SDK error's `.status`, `.headers` (read into a Map) and body (`.body`,
 * else `.error`, as `classifyFailure` reads them); `undefined` for a value that is not an object.
 */
export function copyFailure(thrown: unknown): FailureParts | Error | undefined {
  if (typeof thrown !== "object" || thrown === null) return undefined;
  try {
    const { status, headers } = thrown as { status?: unknown; headers?: unknown };
    const body = "body" in thrown ? thrown.body : (thrown as { error?: unknown }).error;
    return {
      status: typeof status === "number" ? status : undefined,
      headers: typeof headers === "object" && headers !== null ? normalizeHeaders(headers as HeaderInput) : undefined,
      body,
    };
  } catch (error) {
    return unreadable("the thrown error", error);
  }
}

/** The warning for an input that threw while read; the thrown value is kept as `cause`, never stringified. */
export function unreadable(what: string, error: unknown): TypeError {
  return new TypeError(`${what} could not be read (a getter, Proxy or iterator threw); it is ignored`, {
    cause: error,
  });
}

/** What sync returns for a response it could not read: nothing was applied. */
export function unreadView(): RateLimitView {
  return { provider: "unknown", dimensions: {} };
}
