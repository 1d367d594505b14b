import { LimiterError } from "../errors.js";

/** Redis did not answer in time, or could not be reached; `cause` holds the underlying error. */
export class StoreUnavailableError extends LimiterError {
  constructor(message: string, options: { cause: unknown }) {
    super("STORE_UNAVAILABLE", message, options);
  }
}

/**
 * Server replies that mean "not now" rather than "wrong request": loading,
 * busy with a script, a read-only replica after failover, cluster or primary
 * down, out of memory, writes stopped after a failed save.
 */
const UNAVAILABLE_REPLIES = new Set(["LOADING", "BUSY", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "OOM", "MISCONF"]);

/** The code of a Redis error reply (`NOSCRIPT` of "NOSCRIPT No matching script"), or `undefined` for any other error. */
export function replyCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return /^([A-Z][A-Z_]*) /.exec(error.message)?.[1];
}

/**
 * The error to reject with: a {@link StoreUnavailableError} for connection
 * problems and "not now" replies, the original error for other replies (a
 * script error or a misconfiguration is a bug to see, not an outage).
 */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const code = replyCode(error);
  if (code !== undefined && !UNAVAILABLE_REPLIES.has(code)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`Redis store unavailable: ${reason}`, { cause: error });
}
