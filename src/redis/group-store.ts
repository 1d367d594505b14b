import type { SharedLayout, SharedStore } from "../store/shared-store.js";
import { RedisMemberStore } from "./member-store.js";
import { resolveOptions, type RedisStoreOptions } from "./options.js";

/**
 * A `LimiterGroup`'s bucket state in Redis, shared by every process that
 * gives its group the same `key`: one client, one key prefix. Every member's
 * buckets and the shared ones live in one Redis hash, `{<key>}:b` (one hash
 * tag: one Cluster slot), so the script that admits a call takes from its
 * member's budgets and the shared ones at once. A member's own dimensions are
 * kept under its name (`"gpt-4o"/tpm`), the shared ones under theirs
 * (`project-tpd`); each member's concurrency leases go in `{<key>}:c:<member>`, and the count that keeps
 * its processes in step in `{<key>}:d:<member>`.
 * Every other option is `RedisStore`'s, applied to each member. Pass it as a `LimiterGroup`'s `store`; its
 * methods are internal to the package.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { LimiterGroup } from "llm-limiter";
 * import { RedisGroupStore } from "llm-limiter/redis";
 *
 * const group = new LimiterGroup({
 *   models: { "gpt-4o": { rpm: 500, tpm: 30_000 }, "gpt-4o-mini": { rpm: 5_000, tpm: 200_000 } },
 *   shared: { tpd: 2_000_000 },
 *   store: new RedisGroupStore({ client: new Redis({ autoResendUnfulfilledCommands: false }), key: "openai:proj-a" }),
 * });
 * ```
 */
export class RedisGroupStore {
  private readonly options: RedisStoreOptions;
  private readonly levels = new Map<string, number>();

  /** Throws TypeError/RangeError on bad options, as `RedisStore` does. */
  constructor(options: RedisStoreOptions) {
    resolveOptions(options);
    this.options = { ...options };
  }

  /** @internal */
  member(name: string, isShared: (dimension: string) => boolean): SharedStore {
    if (typeof name !== "string") throw new TypeError(`a member's name must be a string, got ${typeof name}`);
    const heard = (layout: SharedLayout, levels: readonly number[]): void => {
      layout.dimensions.forEach((d, i) => {
        if (isShared(d.name) && levels[i] !== undefined) this.levels.set(d.name, levels[i]);
      });
    };
    return new RedisMemberStore(this.options, name, isShared, heard);
  }

  /** @internal */
  sharedLevels(): ReadonlyMap<string, number> {
    return this.levels;
  }
}
