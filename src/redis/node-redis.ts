import type { RedisScriptClient } from "./client.js";
import { followFailovers } from "./node-redis-cluster.js";

/**
 * Keys and arguments of a script call, as node-redis takes them.
 * @inline
 */
export interface NodeRedisEvalOptions {
  /** The script's KEYS. */
  keys: string[];
  /** The script's ARGV. */
  arguments: string[];
}

/**
 * The part of a node-redis (v4, v5) client the store uses (a structural type: no import of redis).
 * @inline
 */
export interface NodeRedisLike {
  /** False while the client connects or reconnects (a cluster client has none). */
  readonly isReady?: boolean;
  /** `EVALSHA`: runs the script cached under `sha1` with the given KEYS and ARGV. */
  evalSha(sha1: string, options: NodeRedisEvalOptions): Promise<unknown>;
  /** `EVAL`: runs `script` (caching it) with the given KEYS and ARGV. */
  eval(script: string, options: NodeRedisEvalOptions): Promise<unknown>;
}

/**
 * Adapts a client shaped like node-redis for `RedisStore`. `RedisStore` takes
 * a node-redis client or cluster (`createClient(...)`, `createCluster(...)`)
 * as it is: any object with `evalSha` and `eval`.
 */
export function nodeRedis(client: NodeRedisLike): RedisScriptClient {
  // A cluster client would not find the new primary after a failover on its own.
  followFailovers(client);
  return {
    evalsha: (sha1, keys, args) => client.evalSha(sha1, { keys: [...keys], arguments: [...args] }),
    eval: (script, keys, args) => client.eval(script, { keys: [...keys], arguments: [...args] }),
    isReady: () => client.isReady !== false,
  };
}
