import type { SyncOptions } from "../options.js";

/** A failed call's response, as `reservation.sync` takes it. */
export interface FailedResponse {
  readonly headers: Record<string, string>;
  readonly options: SyncOptions;
}

/** The fields of the AI SDK's `APICallError` that carry the response (read by shape, not by class). */
interface ApiCallErrorShape {
  readonly statusCode?: unknown;
  readonly responseHeaders?: unknown;
  readonly responseBody?: unknown;
  readonly cause?: unknown;
}

/**
 * The response of a call that failed with an `APICallError` (a 429 included), or with an error wrapping one as
 * its `cause`: its headers, status and body. `undefined` when the error carries no response (a connection error,
 * an abort).
 */
export function failedResponse(error: unknown): FailedResponse | undefined {
  try {
    return responseOf(error) ?? (isObject(error) ? responseOf((error as ApiCallErrorShape).cause) : undefined);
  } catch {
    // A getter or Proxy trap that throws: nothing readable to sync, and the caller's error stands.
    return undefined;
  }
}

function responseOf(error: unknown): FailedResponse | undefined {
  if (!isObject(error)) return undefined;
  const { statusCode, responseHeaders, responseBody } = error as ApiCallErrorShape;
  if (typeof statusCode !== "number" || !isObject(responseHeaders)) return undefined;
  return {
    headers: responseHeaders as Record<string, string>,
    options: { status: statusCode, body: typeof responseBody === "string" ? responseBody : undefined },
  };
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
