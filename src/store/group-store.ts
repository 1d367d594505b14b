import type { SharedStore } from "./shared-store.js";

/**
 * A shared store a `LimiterGroup` splits among its members (`RedisGroupStore`
 * from `llm-limiter/redis`): each member gets a {@link SharedStore} of its
 * own in which its own dimensions are kept apart from every other member's,
 * while the group's shared dimensions are the same state for all of them, so
 * that one call admits against both at once.
 */
export interface GroupStore {
  /**
   * The store of member `name`. A dimension for which `isShared` is true is the group's: every member's
   * store (and every process's, on the same key) reads and writes the same state for it; any other is
   * this member's own. Called once per member made; the stores may share one connection.
   */
  member(name: string, isShared: (dimension: string) => boolean): SharedStore;
  /**
   * The latest levels of the shared dimensions this process heard of (a member's booking answers them),
   * by dimension name; a dimension not booked yet is left out.
   */
  sharedLevels(): ReadonlyMap<string, number>;
}
