/** The scenarios the properties generate, in the model's own terms, and how they translate into limiter options. */
import type { CustomLimit, Estimate, LimitChanges, Limits } from "../../../src/index.js";
import type { Unit } from "../../../src/core/limits.js";

export const MINUTE = 60_000;
export const DAY = 86_400_000;

export const SHORTHAND_SHAPES = {
  rpm: { unit: "requests", windowMs: MINUTE },
  tpm: { unit: "tokens", windowMs: MINUTE },
  rpd: { unit: "requests", windowMs: DAY },
  tpd: { unit: "tokens", windowMs: DAY },
  itpm: { unit: "input", windowMs: MINUTE },
  otpm: { unit: "output", windowMs: MINUTE },
} as const satisfies Record<string, { unit: Unit; windowMs: number }>;

export type Shorthand = keyof typeof SHORTHAND_SHAPES;

/** Budgets in the model's own terms; turned into limiter options and LimitChanges below. */
export interface Config {
  shorthands: Partial<Record<Shorthand, number>>;
  custom: Record<string, CustomLimit>;
  capacity: Record<string, number>;
  concurrency?: number | undefined;
}

/** One change for `setLimits`. */
export type Change =
  | { kind: "limit"; name: Shorthand; value: number | null }
  | { kind: "custom"; name: string; spec: CustomLimit | null }
  | { kind: "capacity"; name: string; value: number | null }
  | { kind: "concurrency"; value: number | null };

export interface Arrival {
  estimate: Estimate;
  abortable: boolean;
  /**
   * Longest wait in ms; or, as `{ patience }`, that multiple of the wait the model
   * expects with nothing else happening (so deadlines land near admissions).
   */
  maxWaitMs?: number | { patience: number } | undefined;
}

export type Op =
  | ({ kind: "arrive" } & Arrival)
  | { kind: "advance"; ms: number }
  | { kind: "settle"; pick: number; used: Estimate }
  | { kind: "refund"; pick: number }
  | { kind: "release"; pick: number }
  | { kind: "abort"; pick: number }
  | { kind: "setLimits"; change: Change }
  | { kind: "close" };

export interface Scenario {
  config: Config;
  initial: "full" | "empty" | number;
  ops: Op[];
}

/** The limiter options that ask for `config`. */
export function limiterOptions(config: Config): Limits {
  return {
    ...config.shorthands,
    ...(Object.keys(config.custom).length > 0 ? { limits: config.custom } : {}),
    ...(Object.keys(config.capacity).length > 0 ? { capacity: config.capacity } : {}),
    ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
  };
}

/** The config after `change`, and the LimitChanges that ask the limiter for it. */
export function applyChange(config: Config, change: Change): { next: Config; changes: LimitChanges } {
  const next: Config = {
    shorthands: { ...config.shorthands },
    custom: { ...config.custom },
    capacity: { ...config.capacity },
    concurrency: config.concurrency,
  };
  switch (change.kind) {
    case "limit":
      // Removing a dimension also drops its burst size, which would otherwise name a missing dimension.
      if (change.value === null) {
        delete next.shorthands[change.name];
        delete next.capacity[change.name];
        return { next, changes: { [change.name]: null, capacity: { [change.name]: null } } };
      }
      next.shorthands[change.name] = change.value;
      return { next, changes: { [change.name]: change.value } };
    case "custom":
      if (change.spec === null) {
        delete next.custom[change.name];
        delete next.capacity[change.name];
        return { next, changes: { limits: { [change.name]: null }, capacity: { [change.name]: null } } };
      }
      next.custom[change.name] = change.spec;
      return { next, changes: { limits: { [change.name]: change.spec } } };
    case "capacity":
      if (change.value === null) delete next.capacity[change.name];
      else next.capacity[change.name] = change.value;
      return { next, changes: { capacity: { [change.name]: change.value } } };
    case "concurrency":
      next.concurrency = change.value ?? undefined;
      return { next, changes: { concurrency: change.value } };
  }
}
