import type { RedisScriptClient } from "./client.js";

/**
 * The part of an `ioredis` `Redis` or `Cluster` the store uses (a structural type: no import of ioredis).
 * @inline
 */
export interface IoredisLike {
  /** `"ready"` once connected; `"wait"` before a `lazyConnect` client's first command, which connects it. */
  readonly status?: string;
  /** `EVALSHA`: runs the script cached under `sha1` on the first `numkeys` strings as KEYS, the rest as ARGV. */
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  /** `EVAL`: runs `script` (caching it) on the first `numkeys` strings as KEYS, the rest as ARGV. */
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/**
 * An `ioredis` `Redis` or `Cluster` as it is. Both say which they are in
 * `isCluster`, which tells them apart from an adapter: the methods have the
 * same names and take other arguments.
 * @inline
 */
export interface IoredisClient extends IoredisLike {
  /** `true` on a `Cluster`, `false` on a `Redis`. */
  readonly isCluster: boolean;
}

/**
 * Adapts a client shaped like `ioredis` for `RedisStore`. An `ioredis` `Redis`
 * or `Cluster` needs none (`RedisStore` takes it as it is); this is for
 * clients that copy its interface without its `isCluster`.
 */
export function ioredis(client: IoredisLike): RedisScriptClient {
  return {
    evalsha: (sha1, keys, args) => client.evalsha(sha1, keys.length, ...keys, ...args),
    eval: (script, keys, args) => client.eval(script, keys.length, ...keys, ...args),
    isReady: () => client.status === undefined || client.status === "ready" || client.status === "wait",
  };
}
