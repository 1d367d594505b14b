import type { RedisScriptClient } from "./client.js";

/** The part of an `ioredis` `Redis` or `Cluster` the store uses (a structural type: no import of ioredis). */
export interface IoredisLike {
  /** `"ready"` once connected; `"wait"` before a `lazyConnect` client's first command, which connects it. */
  readonly status?: string;
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** Adapts an `ioredis` client (`new Redis(...)` or `new Cluster(...)`) for `RedisStore`. */
export function ioredis(client: IoredisLike): RedisScriptClient {
  return {
    evalsha: (sha1, keys, args) => client.evalsha(sha1, keys.length, ...keys, ...args),
    eval: (script, keys, args) => client.eval(script, keys.length, ...keys, ...args),
    isReady: () => client.status === undefined || client.status === "ready" || client.status === "wait",
  };
}
