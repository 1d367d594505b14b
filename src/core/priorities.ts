import { notANumber, plainObject, shown } from "./values.js";

/** The class a limiter has when `priorities` is not given. */
const DEFAULT_CLASS = "default";

/** A limiter's priority classes, checked: ranks (0 the most urgent) by name, and each class's headroom. */
export interface PriorityClasses {
  /** The class names, the most urgent first. */
  readonly names: readonly string[];
  /** Per rank, the fraction of every bucket's capacity the class leaves untouched. */
  readonly reserves: readonly number[];
  /** The rank of a call that names no priority. */
  readonly defaultRank: number;
  /** The rank of `priority` (`undefined`: the default); TypeError for a name that is not a class. */
  rankOf(priority: unknown): number;
}

function classNames(priorities: unknown): string[] {
  if (priorities === undefined) return [DEFAULT_CLASS];
  if (!Array.isArray(priorities)) throw new TypeError(`priorities must be an array of names, got ${shown(priorities)}`);
  if (priorities.length === 0) throw new TypeError("priorities must name at least one class");
  const seen = new Set<string>();
  for (const name of priorities as unknown[]) {
    if (typeof name !== "string" || name === "") {
      throw new TypeError(`priorities must be non-empty strings, got ${shown(name)}`);
    }
    if (seen.has(name)) throw new TypeError(`priorities: "${name}" is declared twice`);
    seen.add(name);
  }
  return [...seen];
}

function listed(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(", ");
}

/** Checks `priorities`, `defaultPriority` and `headroom` of the limiter's options; throws on any mistake. */
export function resolvePriorities(priorities: unknown, defaultPriority: unknown, headroom: unknown): PriorityClasses {
  const names = classNames(priorities);
  const ranks = new Map(names.map((name, rank) => [name, rank]));
  const reserves = names.map(() => 0);
  if (headroom !== undefined) {
    for (const [name, fraction] of Object.entries(plainObject("headroom", headroom))) {
      const rank = ranks.get(name);
      if (rank === undefined) {
        throw new TypeError(`headroom: "${name}" is not a priority class; the classes are ${listed(names)}`);
      }
      if (typeof fraction !== "number") throw notANumber(`headroom.${name}`, fraction);
      if (!(fraction >= 0 && fraction < 1)) {
        throw new RangeError(`headroom.${name} must be a fraction in [0, 1), got ${fraction}`);
      }
      reserves[rank] = fraction;
    }
  }
  const rankOf = (priority: unknown, what = "priority"): number => {
    const rank = typeof priority === "string" ? ranks.get(priority) : undefined;
    if (rank === undefined) {
      throw new TypeError(`${what} must be one of ${listed(names)}, got ${shown(priority)}`);
    }
    return rank;
  };
  const defaultRank =
    defaultPriority === undefined
      ? (ranks.get(DEFAULT_CLASS) ?? names.length - 1)
      : rankOf(defaultPriority, "defaultPriority");
  return {
    names,
    reserves,
    defaultRank,
    rankOf: (priority) => (priority === undefined ? defaultRank : rankOf(priority)),
  };
}

/** Throws TypeError unless `tenant` is a string or `undefined`. */
export function checkTenant(tenant: unknown): string | undefined {
  if (tenant === undefined || typeof tenant === "string") return tenant;
  throw new TypeError(`tenant must be a string, got ${shown(tenant)}`);
}
