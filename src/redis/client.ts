/**
 * The two commands the store needs from a Redis client: an adapter for a
 * client `RedisStore` does not take as it is. Build one with {@link ioredis},
 * {@link nodeRedis} or {@link upstash}, or write your own.
 *
 * Both resolve with the script's reply. A rejection whose message starts with a
 * Redis error code (`NOSCRIPT …`, `ERR …`, as both clients report server
 * errors) is taken as a server reply (see `StoreReplyError`); any other
 * rejection as a connection problem.
 */
export interface RedisScriptClient {
  /** `EVALSHA sha1 numkeys ...keys ...args`. */
  evalsha(sha1: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** `EVAL script numkeys ...keys ...args` (which also caches the script under its SHA1). */
  eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /**
   * Whether a command sent now goes to the server rather than into the
   * client's offline queue (while it connects or reconnects). While it says
   * no, the store sends nothing and waits, up to the command timeout, then
   * fails the call: a command queued in the client could run after the call
   * timed out, and a booking given up on must not land later. Without it,
   * every call is sent.
   */
  isReady?(): boolean;
  /**
   * The command timeout, in ms, of a store on this client whose options set
   * no `timeoutMs`: for a client whose round trips take longer than a
   * connection's to a Redis nearby (`upstash()`'s, over HTTPS, is 3_000).
   * Without it, 250.
   */
  readonly defaultTimeoutMs?: number;
}
