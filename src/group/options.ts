import type { Limits } from "../core/limits.js";
import type { LimiterSnapshot } from "../limiter.js";
import type { DimensionSnapshot } from "../buckets/types.js";
import type { LimiterOptions } from "../options.js";
import type { RedisGroupStore } from "../redis/group-store.js";
import type { LimiterEventName, LimiterEvents } from "../events/types.js";

/**
 * A listener of `LimiterGroup.on`: the payload of event `K` (as `Limiter.on` gives it) and the name of the
 * member it happened on (`group.for(name)`). Called synchronously, in the order listeners were added.
 */
export type GroupListener<K extends LimiterEventName> = (event: LimiterEvents[K], member: string) => void;

/** Budgets every member of a group draws on: {@link Limits} without `concurrency`. */
export type SharedLimits = Omit<Limits, "concurrency">;

/**
 * A {@link LimiterGroup}'s configuration: each model's budgets, the budgets they
 * share, and every other {@link LimiterOptions} option, applied to each member
 * (`maxQueue`, `maxWaitMs`, `provider`, `clock`...). With `store`, the members
 * keep their buckets in Redis, shared by every process on the same key.
 *
 * @example
 * ```ts
 * import { LimiterGroup } from "llm-limiter";
 *
 * const group = new LimiterGroup({
 *   models: { "gpt-4o": { rpm: 500, tpm: 30_000 }, "gpt-4o-mini": { rpm: 5_000, tpm: 200_000 } },
 *   shared: { tpd: 2_000_000 },
 *   default: { rpm: 60, tpm: 10_000 },
 *   provider: "openai",
 * });
 * ```
 */
export interface LimiterGroupOptions extends Omit<LimiterOptions, keyof Limits | "store"> {
  /**
   * Each model's own budgets, by the name calls give it (`group.for("gpt-4o")`):
   * a deployment, a region, a model.
   * @default `{}`: every member is made from `default`
   */
  models?: Record<string, Limits>;
  /**
   * Budgets every member draws on, atomically with its own: an organisation's
   * daily tokens, a project's tokens per minute. OpenAI's project-scoped headers
   * (`x-ratelimit-*-project-tokens`) sync the shared budget of their window.
   * @default `{}`: nothing shared
   */
  shared?: SharedLimits;
  /**
   * The budgets of a model not in `models`, made on first use.
   * @default `undefined`: an unknown model is a TypeError
   */
  default?: Limits;
  /**
   * Most members made from `default` at once. One more evicts the one idle
   * longest (nothing queued or in flight); when none is idle, the call rejects with a RangeError.
   * @default 100
   */
  maxMembers?: number;
  /**
   * In `runAny` with `retry`: a 429 whose retry hint is longer than this, in ms,
   * moves the retry to the candidate predicted to admit it soonest; a shorter one
   * retries on the same candidate after the hint.
   * @default 1000
   */
  moveAfterMs?: number;
  /**
   * Keep every member's buckets and the shared ones in a store shared by every replica:
   * `new RedisGroupStore({ client, key })` from `llm-limiter/redis` (one client, one key prefix for the whole
   * group). One script admits a call against its member's budgets and the shared ones at once, across
   * processes. A `RedisStore` is a TypeError: it meters one limiter's quota.
   * @default `undefined`: the buckets live in this process
   */
  store?: RedisGroupStore;
}

/** What {@link LimiterGroup.snapshot} returns. */
export interface GroupSnapshot {
  /** Every member by name, as its `Limiter.snapshot()`; a shared dimension shows there as `project-<name>`. */
  readonly members: Record<string, LimiterSnapshot>;
  /**
   * The shared dimensions by their name in `shared` (levels floored, as in `Limiter.snapshot`). With a store:
   * as the latest booking of a member in this process left them.
   */
  readonly shared: Record<string, DimensionSnapshot>;
}
