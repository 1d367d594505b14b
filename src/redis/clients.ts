import type { RedisScriptClient } from "./client.js";
import { ioredis, type IoredisClient } from "./ioredis.js";
import { nodeRedis, type NodeRedisLike } from "./node-redis.js";
import { upstashAsItIs, type UpstashLike } from "./upstash.js";

/**
 * What `RedisStore` takes as its connection: an `ioredis` `Redis` or
 * `Cluster`, a node-redis client or cluster (`createClient`, `createCluster`),
 * an `@upstash/redis` `Redis`, as they are, or an adapter for another client.
 */
export type RedisClient = IoredisClient | NodeRedisLike | UpstashLike | RedisScriptClient;

type Probe = Record<string, unknown>;

const methods = (client: Probe, ...names: string[]): boolean =>
  names.every((name) => typeof client[name] === "function");

/**
 * The adapter for `client`, told by its shape (ioredis, redis and
 * @upstash/redis are optional: nothing of theirs is imported). Throws a
 * TypeError for anything else: a client taken for an adapter would send wrong
 * arguments on every call.
 */
export function scriptClient(client: RedisClient): RedisScriptClient {
  const probe = (typeof client === "object" && client !== null ? client : {}) as Probe;
  if (typeof probe.isCluster === "boolean" && methods(probe, "evalsha", "eval"))
    return ioredis(client as IoredisClient);
  if (methods(probe, "evalSha", "eval")) return nodeRedis(client as NodeRedisLike);
  // An @upstash/redis Redis has an adapter's methods, and replies and fails in its own way.
  if (methods(probe, "evalsha", "eval", "pipeline", "createScript", "use")) return upstashAsItIs(client as UpstashLike);
  if (methods(probe, "evalsha", "eval") && (probe.isReady === undefined || methods(probe, "isReady")))
    return client as RedisScriptClient;
  throw new TypeError(
    "client must be an ioredis Redis or Cluster, a node-redis client or cluster (createClient, createCluster), " +
      "an @upstash/redis Redis, " +
      `or an adapter with evalsha() and eval() (a RedisScriptClient); got ${describe(client)}`,
  );
}

/** What was passed instead, for the error: `undefined`, `a Map`, `an object with keys get, set`. */
function describe(value: unknown): string {
  if (typeof value !== "object" || value === null) return String(value);
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof name === "string" && name !== "Object") return `a ${name}`;
  const keys = Object.keys(value);
  return keys.length === 0 ? "an empty object" : `an object with keys ${keys.slice(0, 5).join(", ")}`;
}
