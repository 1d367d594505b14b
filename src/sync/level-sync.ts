import type { DimensionSnapshot } from "../buckets/types.js";
import { levelAt } from "../core/bucket.js";
import type { Meter } from "../core/meter.js";
import type { SyncOrigin } from "../core/origin.js";
import type { FailureClass } from "../headers/failures.js";
import type { RateLimitView } from "../headers/types.js";

/**
 * How response headers move the levels admission draws on: in this process
 * (`LocalLevels`, which also learns other clients' share of the key and fixed
 * windows) or in a store shared by every replica (`SharedLevels`).
 */
export interface LevelSync {
  /** The origin of headers applied as current, tied to no request (`Limiter.sync`). */
  current(seq: number): SyncOrigin;
  /**
   * The meters whose draws are all this process adds to the key, for telling a
   * window by its refill; `undefined` when other processes' draws go through the same levels.
   */
  ownDraws(meters: ReadonlyMap<string, Meter>): ReadonlyMap<string, Meter> | undefined;
  /**
   * Sets levels to what `view` reports of the request of `origin`, at monotonic `now`; tells `heard`
   * each dimension's level before and what the view says it is now, where this process keeps the levels.
   */
  apply(view: RateLimitView, meters: readonly Meter[], origin: SyncOrigin, now: number, heard?: LevelHeard): void;
  /**
   * A rate-limit 429 of the request admitted `seq`th (`admissions` so far):
   * drains what it names, or returns the pause it asks for.
   */
  rateLimited(
    failure: FailureClass,
    meters: readonly Meter[],
    seq: number,
    admissions: number,
    now: number,
  ): PauseOrder | undefined;
}

/** A dimension's level as the limiter counted it (`local`) and as a response reports it, brought to now. */
export type LevelHeard = (meter: Meter, local: number, reported: number) => void;

/** A pause a 429 asks for: admission puts it in force (see `QueuedAdmission.hold`). */
export interface PauseOrder {
  /** The dimensions it names; `undefined`: every one. */
  readonly names: readonly string[] | undefined;
  /** For how long, in ms: the retry hint (at most a month). */
  readonly ms: number;
  /** It names a per-day quota (`FailureClass.perDay`). */
  readonly perDay: boolean;
}

/** What a 429 drains. */
export interface HoldTarget {
  /** Lowers dimension `name` to at most `level`; never raises it. */
  lower(name: string, level: number): void;
  /** The current level of every dimension. */
  snapshot(): Record<string, DimensionSnapshot>;
}

/** `remaining` as read at the request's admission, refilled at the full rate to now. */
export function broughtForward(meter: Meter, remaining: number, origin: SyncOrigin, now: number): number {
  return levelAt(meter.dimension, { level: remaining, at: origin.admittedAtMs ?? now }, now);
}

/** The meters of the budget a 429 names (by unit): requests, or tokens of any kind; none when it names none. */
export function namedBy(failure: FailureClass, meters: readonly Meter[]): Meter[] {
  const units =
    failure.dimension === "requests"
      ? ["requests"]
      : failure.dimension === "tokens"
        ? ["tokens", "input", "output"]
        : undefined;
  return units ? meters.filter((m) => units.includes(m.dimension.unit)) : [];
}

/**
 * Holds admission back after a 429: returns the pause the provider's hint asks for, on the dimensions the
 * body names (else on all); with no hint, drains the binding bucket rather than guess a pause.
 */
export function holdBack(
  failure: FailureClass,
  named: readonly Meter[],
  meters: readonly Meter[],
  target: HoldTarget,
): PauseOrder | undefined {
  if (failure.retryAfterMs !== undefined) {
    const names = named.length === 0 ? undefined : named.map((m) => m.name);
    return { names, ms: failure.retryAfterMs, perDay: failure.perDay === true };
  }
  const levels = target.snapshot();
  const fullness = (m: Meter): number => (levels[m.name]?.available ?? 0) / m.dimension.capacity;
  const binding =
    named.length > 0 ? named : meters.length > 0 ? [meters.reduce((a, b) => (fullness(b) < fullness(a) ? b : a))] : [];
  for (const meter of binding) target.lower(meter.name, 0);
  return undefined;
}
