import type { BucketShape } from "./bucket.js";
import type { CustomLimit, LimitChanges, Limits, Unit } from "./limits.js";
import { plainObject, positive, positiveAtMost, shown, unknownOption } from "./values.js";

/** One metered budget: a continuously refilling bucket. */
export interface Dimension extends BucketShape {
  readonly name: string;
  readonly unit: Unit;
  /** Learned from headers that did not tell its window: `windowMs` is the shortest the evidence allows. */
  readonly windowGuessed?: true;
  /**
   * Discovered from a provider that reports nothing (the rate it served between 429s, `ServedRate`): its own
   * controller cuts it on a 429, not the share of the key that header sync learns.
   */
  readonly discovered?: true;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** A configured limit or capacity above this is absurd: counts near 2^53 lose integer precision. */
export const MAX_LIMIT = 1e15;
/** A configured window longer than this is absurd (no provider meters beyond a year), and would stall refill. */
export const MAX_WINDOW_MS = 366 * DAY;

/** The shorthand budgets, by option name. */
export const SHORTHANDS = {
  rpm: { unit: "requests", windowMs: MINUTE },
  tpm: { unit: "tokens", windowMs: MINUTE },
  rpd: { unit: "requests", windowMs: DAY },
  tpd: { unit: "tokens", windowMs: DAY },
  itpm: { unit: "input", windowMs: MINUTE },
  otpm: { unit: "output", windowMs: MINUTE },
} as const satisfies Record<string, { unit: Unit; windowMs: number }>;

type Shorthand = keyof typeof SHORTHANDS;
const SHORTHAND_NAMES = Object.keys(SHORTHANDS) as Shorthand[];
const UNITS: readonly Unit[] = ["requests", "tokens", "input", "output"];
/** The budget options of {@link Limits}. */
export const LIMIT_KEYS: readonly string[] = [...SHORTHAND_NAMES, "concurrency", "limits", "capacity"];
const LIMIT_KEY_SET = new Set(LIMIT_KEYS);
const CUSTOM_KEYS: readonly string[] = ["unit", "limit", "windowMs", "capacity"];

/** Whether `key` is one of the budget options of {@link Limits}. */
export function isLimitKey(key: string): boolean {
  return LIMIT_KEY_SET.has(key);
}

function customDimension(name: string, spec: unknown): Omit<Dimension, "capacity"> & { capacity?: number } {
  const s = plainObject(`limits.${name}`, spec) as Partial<CustomLimit>;
  for (const key of Object.keys(s)) {
    if (!CUSTOM_KEYS.includes(key)) throw unknownOption(`limits.${name}`, key, CUSTOM_KEYS);
  }
  if (!UNITS.includes(s.unit as Unit)) {
    throw new TypeError(`limits.${name}.unit must be one of ${UNITS.join(", ")}, got ${shown(s.unit)}`);
  }
  return {
    name,
    unit: s.unit as Unit,
    limit: positiveAtMost(`limits.${name}.limit`, s.limit, MAX_LIMIT),
    windowMs: positiveAtMost(`limits.${name}.windowMs`, s.windowMs, MAX_WINDOW_MS),
    ...(s.capacity === undefined ? {} : { capacity: positiveAtMost(`limits.${name}.capacity`, s.capacity, MAX_LIMIT) }),
  };
}

/** Validated budgets: the bucket dimensions and the concurrency limit. */
export interface Budget {
  readonly dimensions: readonly Dimension[];
  readonly concurrency: number | undefined;
}

/** Turns (validated) budget options into dimensions. Throws TypeError/RangeError on bad config. */
export function buildBudget(limits: Limits): Budget {
  const drafts: (Omit<Dimension, "capacity"> & { capacity?: number })[] = [];
  for (const name of SHORTHAND_NAMES) {
    const limit = limits[name];
    if (limit === undefined) continue;
    drafts.push({ name, ...SHORTHANDS[name], limit: positiveAtMost(name, limit, MAX_LIMIT) });
  }
  if (limits.limits !== undefined) {
    for (const [name, spec] of Object.entries(plainObject("limits", limits.limits))) {
      if (Object.hasOwn(SHORTHANDS, name) || name === "concurrency") {
        throw new TypeError(`limits.${name}: "${name}" is a shorthand; set it as a top-level option`);
      }
      if (name === "queued" || name === "inFlight") {
        throw new TypeError(`limits.${name}: "${name}" is reserved for snapshot() counts`);
      }
      // A record keyed by it would take it as the prototype: the dimension would vanish from snapshot().
      if (name === "__proto__") throw new TypeError(`limits.__proto__: "__proto__" cannot name a dimension`);
      drafts.push(customDimension(name, spec));
    }
  }
  const capacities = limits.capacity === undefined ? {} : plainObject("capacity", limits.capacity);
  for (const name of Object.keys(capacities)) {
    if (!drafts.some((d) => d.name === name)) {
      throw new TypeError(`capacity.${name}: no such dimension is configured`);
    }
  }
  const dimensions = drafts.map((d): Dimension => {
    const capacity = capacities[d.name];
    return {
      ...d,
      capacity:
        capacity === undefined ? (d.capacity ?? d.limit) : positiveAtMost(`capacity.${d.name}`, capacity, MAX_LIMIT),
    };
  });
  let concurrency: number | undefined;
  if (limits.concurrency !== undefined) {
    concurrency = positive("concurrency", limits.concurrency);
    if (!Number.isInteger(concurrency)) throw new RangeError(`concurrency must be an integer, got ${concurrency}`);
  }
  return { dimensions, concurrency };
}

/** Applies {@link LimitChanges} to the budget options they change. */
export function mergeLimits(current: Limits, changes: LimitChanges): Limits {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(plainObject("setLimits()", changes))) {
    if (!isLimitKey(key)) throw unknownOption("setLimits()", key, LIMIT_KEYS);
    if (key === "limits" || key === "capacity") {
      if (value === undefined) continue;
      const merged: Record<string, unknown> = { ...(current[key] ?? {}) };
      for (const [name, entry] of Object.entries(plainObject(key, value))) {
        if (entry === null) delete merged[name];
        else merged[name] = entry;
      }
      next[key] = merged;
    } else if (value === null) {
      delete next[key];
    } else if (value !== undefined) {
      next[key] = value;
    }
  }
  return next as Limits;
}
