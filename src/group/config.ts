import { resolveOptions } from "../config.js";
import { buildBudget, isLimitKey, LIMIT_KEYS } from "../core/budget.js";
import type { CustomLimit, Limits } from "../core/limits.js";
import type { PriorityClasses } from "../core/priorities.js";
import { notANumber, plainObject, unknownOption } from "../core/values.js";
import type { LimiterOptions } from "../options.js";
import type { GroupStore } from "../store/group-store.js";
import type { LimiterGroupOptions } from "./options.js";

/**
 * How a shared dimension is named inside each member: `project-<name>`, the
 * name OpenAI's project-scoped headers (`x-ratelimit-*-project-tokens`) are read under,
 * so a member's header sync lands there without routing of its own.
 */
export const SHARED_PREFIX = "project-";

const GROUP_KEYS = ["models", "shared", "default", "maxMembers", "moveAfterMs", "store"] as const;
const SHARED_KEYS = LIMIT_KEYS.filter((key) => key !== "concurrency");

/** A group's options, checked: what each member is made of. */
export interface GroupConfig {
  /** The options every member takes (neither budgets nor the group's own). */
  readonly common: LimiterOptions;
  readonly models: ReadonlyMap<string, Limits>;
  /** The shared budgets as each member's custom limits, by their name inside members. */
  readonly shared: Readonly<Record<string, CustomLimit>>;
  readonly fallback: Limits | undefined;
  readonly maxMembers: number;
  readonly moveAfterMs: number;
  /** Where the members keep their buckets; `undefined`: in this process. */
  readonly store: GroupStore | undefined;
  /** The members' priority classes (they all take the same options): `runAny` predicts in its call's. */
  readonly classes: PriorityClasses;
  /** The fraction of its capacity a dimension starts with (`initial`). */
  readonly initialFraction: number;
}

/** Checks a group's own options; throws TypeError/RangeError. Members check the rest as they are made. */
export function readGroupOptions(options: LimiterGroupOptions): GroupConfig {
  const all = plainObject("new LimiterGroup() options", options);
  const common: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(all)) {
    if ((GROUP_KEYS as readonly string[]).includes(key)) continue;
    if (isLimitKey(key)) {
      throw new TypeError(
        `new LimiterGroup(): \`${key}\` is a budget: set it in \`models\`, \`shared\` or \`default\``,
      );
    }
    common[key] = value;
  }
  const models = new Map<string, Limits>();
  if (all.models !== undefined) {
    for (const [name, limits] of Object.entries(plainObject("models", all.models))) {
      models.set(name, checkOwn(`models[${JSON.stringify(name)}]`, limits));
    }
  }
  const fallback = all.default === undefined ? undefined : checkOwn("default", all.default);
  const config: Omit<GroupConfig, "classes" | "initialFraction"> = {
    common: common as LimiterOptions,
    models,
    shared: sharedLimits(all.shared),
    fallback,
    maxMembers: count("maxMembers", all.maxMembers, 100),
    moveAfterMs: duration("moveAfterMs", all.moveAfterMs, 1000),
    store: groupStore(all.store),
  };
  // Members from `default` are made later: their options must be good now.
  const later = memberOptions(config, fallback ?? {});
  try {
    const resolved = resolveOptions(later);
    buildBudget(resolved.limits);
    return { ...config, classes: resolved.classes, initialFraction: resolved.initialFraction };
  } catch (error) {
    if (error instanceof Error) error.message = `${fallback ? "default" : "new LimiterGroup()"}: ${error.message}`;
    throw error;
  }
}

/** A member's options: the common ones, its own budgets and the shared ones. */
export function memberOptions(config: Pick<GroupConfig, "common" | "shared">, own: Limits): LimiterOptions {
  return { ...config.common, ...own, limits: { ...own.limits, ...config.shared } };
}

/** Whether a member's dimension is one of the group's shared ones (a project-scoped one learned from headers too). */
export function isShared(dimension: string): boolean {
  return dimension.startsWith(SHARED_PREFIX);
}

/** `store`, checked: a store a group splits among its members. */
function groupStore(value: unknown): GroupStore | undefined {
  if (value === undefined) return undefined;
  const store = value as Partial<GroupStore & { book: unknown }> | null;
  if (typeof store === "object" && store !== null) {
    if (typeof store.member === "function" && typeof store.sharedLevels === "function") return store as GroupStore;
    if (typeof store.book === "function") {
      throw new TypeError(
        "new LimiterGroup(): `store` is a limiter's store (a RedisStore meters one quota); " +
          "a group takes a RedisGroupStore from llm-limiter/redis: new RedisGroupStore({ client, key })",
      );
    }
  }
  throw new TypeError(
    "new LimiterGroup(): `store` must be a group store, such as new RedisGroupStore({ client, key }) " +
      `from llm-limiter/redis; got ${store === null ? "null" : typeof store}`,
  );
}

/** A model's budgets: only budget keys, and no custom limit under the shared dimensions' names. */
function checkOwn(where: string, limits: unknown): Limits {
  const own = plainObject(where, limits);
  for (const key of Object.keys(own)) if (!isLimitKey(key)) throw unknownOption(where, key, LIMIT_KEYS);
  for (const key of ["limits", "capacity"] as const) {
    if (own[key] === undefined) continue;
    for (const name of Object.keys(plainObject(`${where}.${key}`, own[key]))) {
      if (isShared(name)) {
        throw new TypeError(`${where}.${key}.${name}: names starting with "${SHARED_PREFIX}" are the shared budgets'`);
      }
    }
  }
  return own as Limits;
}

/** `shared`, checked as a budget, as custom limits named for inside members. */
function sharedLimits(value: unknown): Record<string, CustomLimit> {
  if (value === undefined) return {};
  const shared = plainObject("shared", value);
  for (const key of Object.keys(shared))
    if (!SHARED_KEYS.includes(key)) throw unknownOption("shared", key, SHARED_KEYS);
  let dimensions;
  try {
    dimensions = buildBudget(shared as Limits).dimensions;
  } catch (error) {
    if (error instanceof Error) error.message = `shared: ${error.message}`;
    throw error;
  }
  const limits: Record<string, CustomLimit> = {};
  for (const { name, unit, limit, windowMs, capacity } of dimensions) {
    limits[`${SHARED_PREFIX}${name}`] = { unit, limit, windowMs, capacity };
  }
  return limits;
}

function count(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw notANumber(name, value);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
  return value;
}

function duration(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") throw notANumber(name, value);
  if (!(value >= 0)) throw new RangeError(`${name} must be a number >= 0, got ${value}`);
  return value;
}
