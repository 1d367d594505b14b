import { positive } from "../core/values.js";
import { MAX_TIMEOUT_MS } from "../core/clock.js";
import { checkFailurePolicy, type StoreFailurePolicy } from "../store/shared-store.js";
import type { RedisScriptClient } from "./client.js";
import { scriptClient, type RedisClient } from "./clients.js";

/**
 * Options of `RedisStore`.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { RedisStore } from "llm-limiter/redis";
 *
 * const store = new RedisStore({
 *   client: new Redis({ autoResendUnfulfilledCommands: false }),
 *   key: "openai:proj-a:gpt-4o",
 *   onError: { local: 1 / 8 }, // eight replicas: each takes an eighth while Redis is down
 * });
 * ```
 */
export interface RedisStoreOptions {
  /**
   * The Redis connection: an `ioredis` `Redis` or `Cluster`, or a node-redis
   * client or cluster (`createClient`, `createCluster`), as it is; for another
   * client, an adapter (a {@link RedisScriptClient}). The store does not close
   * it: `quit()` it after closing the limiters that use it.
   */
  readonly client: RedisClient;
  /**
   * Names the quota this store meters, e.g. `"openai:proj-a:gpt-4o"`: every
   * process using the same key shares its buckets. Redis keys `{<key>}:b`,
   * `{<key>}:c` and `{<key>}:d` hold the state (one hash tag, so Redis Cluster accepts the scripts).
   * A key that starts with `}` is refused (`TypeError`): Redis would read an
   * empty hash tag `{}` and hash each of those keys whole, to slots apart.
   */
  readonly key: string;
  /**
   * Longest wait for each Redis command, in ms; then the call rejects with
   * `StoreUnavailableError`.
   *
   * While the client is not connected (it connects or reconnects), the store
   * sends nothing and waits for it within this time, then fails: a command
   * never waits in the client's offline queue to run after its call timed out.
   * With ioredis, also set `autoResendUnfulfilledCommands: false`: otherwise it
   * sends again, after reconnecting, the commands in flight when the
   * connection dropped.
   *
   * On an `upstash()` client (Redis over HTTPS) the default is 3_000: see
   * docs/redis.md, "Over HTTP: Upstash".
   * @default 250
   */
  readonly timeoutMs?: number;
  /**
   * How long a concurrency lease lives unless renewed, in ms: the slot of a
   * process that crashed mid-call frees itself after this.
   * @default 60_000
   */
  readonly leaseMs?: number;
  /**
   * What a limiter on this store does while Redis is unreachable:
   * `"fail-closed"` (admit nothing; requests wait, or time out on their
   * `maxWaitMs`, until Redis is back), `"fail-open"` (admit everything,
   * unmetered) or `{ local: f }` (admit through a local limiter holding the
   * fraction `f` of every budget, e.g. `1 / replicas`).
   * @default "fail-closed"
   */
  readonly onError?: StoreFailurePolicy;
}

/** {@link RedisStoreOptions} with defaults applied, validated. */
export interface ResolvedRedisStoreOptions {
  readonly client: RedisScriptClient;
  readonly key: string;
  readonly timeoutMs: number;
  readonly leaseMs: number;
  readonly onError: StoreFailurePolicy;
}

function duration(what: string, value: number): number {
  positive(what, value);
  if (value > MAX_TIMEOUT_MS) throw new RangeError(`${what} must be at most ${MAX_TIMEOUT_MS} ms, got ${value}`);
  return value;
}

/** Applies defaults; throws TypeError/RangeError on bad options. */
export function resolveOptions(options: RedisStoreOptions): ResolvedRedisStoreOptions {
  const { key, leaseMs = 60_000, onError = "fail-closed" } = options;
  const client = scriptClient(options.client);
  const timeoutMs = options.timeoutMs ?? client.defaultTimeoutMs ?? 250;
  // An empty key would make an empty hash tag, and Cluster would hash the two keys apart.
  if (typeof key !== "string" || key.length === 0)
    throw new TypeError(`key must be a non-empty string, got ${String(key)}`);
  // So would one starting with '}': the tag ends at the first '}' after the '{' (a '}' later on only shortens it).
  if (key.startsWith("}"))
    throw new TypeError(
      `key must not start with "}", got ${JSON.stringify(key)}: the Redis keys {${key}}:b and {${key}}:c would have ` +
        "an empty hash tag, so a Redis Cluster would hash them to different slots (CROSSSLOT)",
    );
  checkFailurePolicy(onError);
  return { client, key, timeoutMs: duration("timeoutMs", timeoutMs), leaseMs: duration("leaseMs", leaseMs), onError };
}
