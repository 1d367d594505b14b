import { LimiterError } from "../core/errors.js";

/** Redis did not answer in time, or could not be reached; `cause` holds the underlying error. */
export class StoreUnavailableError extends LimiterError {
  static override readonly code = "STORE_UNAVAILABLE";
  declare readonly code: "STORE_UNAVAILABLE";

  constructor(message: string, options: { cause: unknown }) {
    super("STORE_UNAVAILABLE", message, options);
  }
}

/**
 * Redis answered a store command with an error that retrying cannot cure:
 * `WRONGTYPE` (another application uses the store's keys), a script or
 * argument error (`ERR …`), a missing permission (`NOPERM`), a hash of
 * another layout version (`LAYOUT`), a stored value that is not a finite
 * number (`CORRUPT`: the script reset what it spoiled to empty, and the
 * limiter warns of it too), a reply the store cannot read (`MALFORMED`). The
 * calls it concerns reject with it at once, whatever the failure policy;
 * `cause` holds the client's error.
 */
export class StoreReplyError extends LimiterError {
  static override readonly code = "STORE_REPLY";
  declare readonly code: "STORE_REPLY";

  constructor(
    /** The reply's text, e.g. `"WRONGTYPE Operation against a key holding the wrong kind of value"`. */
    readonly reply: string,
    /** The reply's error code, e.g. `"WRONGTYPE"`. */
    readonly replyCode: string,
    /** The store's Redis keys the command was sent for. */
    readonly keys: readonly string[],
    options: { cause: unknown },
  ) {
    super("STORE_REPLY", `Redis refused the store's command on ${keys.join(", ")}: ${reply}`, options);
  }
}

/**
 * Server replies that mean "not now" rather than "wrong request": loading,
 * busy with a script, a read-only replica after failover, cluster or primary
 * down, out of memory, writes stopped after a failed save, too few replicas
 * for `min-replicas-to-write`.
 */
const UNAVAILABLE_REPLIES = new Set([
  "LOADING",
  "BUSY",
  "READONLY",
  "MASTERDOWN",
  "CLUSTERDOWN",
  "TRYAGAIN",
  "OOM",
  "MISCONF",
  "NOREPLICAS",
]);

/**
 * The code of a Redis error reply (`NOSCRIPT` of "NOSCRIPT No matching script"), or `undefined` for any other error.
 */
export function replyCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return /^([A-Z][A-Z_]*) /.exec(error.message)?.[1];
}

/**
 * The error to reject with: a {@link StoreUnavailableError} for connection
 * problems, timeouts and "not now" replies (the failure policy applies, and
 * the call is retried), a {@link StoreReplyError} for other replies.
 */
export function storeError(error: unknown, keys: readonly string[]): LimiterError {
  if (error instanceof StoreUnavailableError) return error;
  const code = replyCode(error);
  if (code !== undefined && !UNAVAILABLE_REPLIES.has(code))
    return new StoreReplyError((error as Error).message, code, keys, { cause: error });
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`Redis store unavailable: ${reason}`, { cause: error });
}
