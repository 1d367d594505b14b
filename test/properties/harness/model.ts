/**
 * The reference model: plain bucket arithmetic written here, not imported from src, that the driver replays the
 * limiter's outcomes against.
 */
import type { Estimate } from "../../../src/index.js";
import type { Unit } from "../../../src/core/limits.js";
import { SHORTHAND_SHAPES, type Config, type Scenario, type Shorthand } from "./scenario.js";

/** One bucket instance: a dimension removed and added again, or given another unit, is a new one. */
export interface Bucket {
  readonly name: string;
  readonly unit: Unit;
  limit: number;
  windowMs: number;
  capacity: number;
  level: number;
  at: number;
}

/** What `amount` costs on a bucket counting `unit`. */
export function costOn(unit: Unit, amount: Estimate): number {
  if (unit === "requests") return 1;
  if (typeof amount === "number") return amount;
  return unit === "tokens" ? amount.input + amount.output : amount[unit];
}

/**
 * What a settle of `used` charges on `bucket` for a call estimated at `estimate`, as the options say
 * (`maxUsage`): whole units, believed up to the larger of 16 times the estimate there and the bucket's
 * capacity, and never past `maxUsage`.
 */
export function settledCharge(bucket: Bucket, used: Estimate, estimate: Estimate, maxUsage = 10_000_000): number {
  const reported = Math.ceil(costOn(bucket.unit, used));
  const believed = Math.ceil(Math.min(maxUsage, Math.max(16 * costOn(bucket.unit, estimate), bucket.capacity)));
  return Math.min(reported, believed);
}

/** Float slack for comparing model and limiter: relative to the bucket's size. */
export function tolerance(bucket: Bucket): number {
  return 1e-6 * Math.max(1, bucket.capacity, Math.abs(bucket.level));
}

interface Shape {
  unit: Unit;
  limit: number;
  windowMs: number;
  capacity: number;
}

/** The dimensions a config defines, or `undefined` if the limiter must refuse it. */
export function shapesOf(config: Config): Map<string, Shape> | undefined {
  const shapes = new Map<string, Shape>();
  for (const [name, limit] of Object.entries(config.shorthands)) {
    const { unit, windowMs } = SHORTHAND_SHAPES[name as Shorthand];
    shapes.set(name, { unit, windowMs, limit, capacity: limit });
  }
  for (const [name, spec] of Object.entries(config.custom)) {
    shapes.set(name, {
      unit: spec.unit,
      windowMs: spec.windowMs,
      limit: spec.limit,
      capacity: spec.capacity ?? spec.limit,
    });
  }
  for (const [name, capacity] of Object.entries(config.capacity)) {
    const shape = shapes.get(name);
    if (!shape) return undefined; // a burst size for a dimension that is not configured
    shape.capacity = capacity;
  }
  return shapes;
}

/** The limiter as the design says it behaves: its buckets, in-flight calls and closed state at virtual `now`. */
export class Model {
  now = 0;
  inFlight = 0;
  closed = false;
  readonly buckets = new Map<string, Bucket>();
  config: Config = { shorthands: {}, custom: {}, capacity: {} };

  constructor(
    config: Config,
    private readonly initialFraction: number,
  ) {
    this.reconfigure(config);
  }

  /**
   * Applies a config at `now`: a kept dimension refills at its old rate first,
   * then is clamped to the new capacity; a new one (or one that now counts
   * another unit) starts at `initial`.
   */
  reconfigure(config: Config): void {
    const shapes = shapesOf(config);
    if (!shapes) throw new Error("model: invalid config");
    for (const [name, bucket] of [...this.buckets])
      if (shapes.get(name)?.unit !== bucket.unit) this.buckets.delete(name);
    for (const [name, shape] of shapes) {
      const kept = this.buckets.get(name);
      if (!kept) {
        this.buckets.set(name, { name, ...shape, level: shape.capacity * this.initialFraction, at: this.now });
        continue;
      }
      this.refill(kept);
      Object.assign(kept, {
        limit: shape.limit,
        windowMs: shape.windowMs,
        capacity: shape.capacity,
        level: Math.min(kept.level, shape.capacity),
      });
    }
    this.config = config;
  }

  /** level(t) = min(capacity, level + (t - t0) * limit / windowMs). */
  levelOf(bucket: Bucket, t = this.now): number {
    return Math.min(bucket.capacity, bucket.level + ((t - bucket.at) * bucket.limit) / bucket.windowMs);
  }

  private refill(bucket: Bucket): void {
    bucket.level = this.levelOf(bucket);
    bucket.at = this.now;
  }

  /** The slot limit in force: a limiter with no budget at all admits one call at a time (until headers say more). */
  get concurrency(): number | undefined {
    return this.config.concurrency ?? (this.buckets.size === 0 ? 1 : undefined);
  }

  slotFree(): boolean {
    const limit = this.concurrency;
    return limit === undefined || this.inFlight < limit;
  }

  /** The dimension on which `estimate` can never fit, if any. */
  tooLargeOn(estimate: Estimate): Bucket | undefined {
    for (const bucket of this.buckets.values()) if (costOn(bucket.unit, estimate) > bucket.capacity) return bucket;
    return undefined;
  }

  /**
   * Buckets whose level, within tolerance, does not cover the cost: `margin` -1 asks "could it fit", +1 "must it fit".
   */
  short(estimate: Estimate, margin: -1 | 1): string[] {
    const names: string[] = [];
    for (const bucket of this.buckets.values()) {
      const room = this.levelOf(bucket) - costOn(bucket.unit, estimate);
      if (room < margin * tolerance(bucket)) names.push(bucket.name);
    }
    return names;
  }

  /** Exact ms until every bucket covers `estimate` with nothing else happening. */
  waitFor(estimate: Estimate, from = this.now): number {
    let wait = 0;
    for (const bucket of this.buckets.values()) {
      const missing = costOn(bucket.unit, estimate) - this.levelOf(bucket, from);
      if (missing > 0) wait = Math.max(wait, (missing * bucket.windowMs) / bucket.limit);
    }
    return wait;
  }

  /** Takes the cost from every bucket; returns what each instance was charged. */
  take(estimate: Estimate): Map<Bucket, number> {
    const charges = new Map<Bucket, number>();
    for (const bucket of this.buckets.values()) {
      const cost = costOn(bucket.unit, estimate);
      this.refill(bucket);
      bucket.level -= cost;
      charges.set(bucket, cost);
    }
    this.inFlight++;
    return charges;
  }

  /** Moves each charge to `target(unit)`; only the instance that was charged sees the difference. */
  recharge(charges: Map<Bucket, number>, target: (unit: Unit, bucket: Bucket) => number): void {
    for (const [bucket, charged] of charges) {
      const next = target(bucket.unit, bucket);
      charges.set(bucket, next);
      if (this.buckets.get(bucket.name) !== bucket) continue;
      this.refill(bucket);
      bucket.level = Math.min(bucket.capacity, bucket.level + charged - next);
    }
  }

  /**
   * When `estimate`, queued behind `ahead`, would be admitted if nothing else
   * happened (no settle, release or abort; waiters ahead leave at their deadlines
   * unless admitted earlier, ties counted as leaving). Used to judge an at-once
   * WaitTimeoutError. `Infinity` when only a release could admit it.
   */
  admissionWithoutEvents(ahead: readonly { estimate: Estimate; deadline: number }[], estimate: Estimate): number {
    const levels = new Map<Bucket, number>();
    for (const bucket of this.buckets.values()) levels.set(bucket, this.levelOf(bucket));
    let t = this.now;
    let inFlight = this.inFlight;
    const limit = this.concurrency ?? Infinity;
    const admitAt = (cost: Estimate): number => {
      if (inFlight >= limit) return Infinity;
      let wait = 0;
      for (const [bucket, level] of levels) {
        const missing = costOn(bucket.unit, cost) - level;
        if (missing > 0) wait = Math.max(wait, (missing * bucket.windowMs) / bucket.limit);
      }
      return t + wait;
    };
    const moveTo = (next: number): void => {
      for (const [bucket, level] of levels) {
        levels.set(bucket, Math.min(bucket.capacity, level + ((next - t) * bucket.limit) / bucket.windowMs));
      }
      t = next;
    };
    for (const waiter of ahead) {
      const at = admitAt(waiter.estimate);
      if (at >= waiter.deadline) {
        if (waiter.deadline === Infinity) return Infinity;
        moveTo(Math.max(t, waiter.deadline));
        continue;
      }
      moveTo(at);
      for (const [bucket, level] of levels) levels.set(bucket, level - costOn(bucket.unit, waiter.estimate));
      inFlight++;
    }
    return admitAt(estimate);
  }
}

/** The fraction of its capacity a new bucket starts with. */
export function initialFraction(initial: Scenario["initial"]): number {
  return initial === "full" ? 1 : initial === "empty" ? 0 : initial;
}
