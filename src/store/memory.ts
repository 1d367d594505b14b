import { advance, covers, levelAt, msUntilCovered, type BucketShape, type BucketState } from "../bucket.js";
import type { Clock } from "../clock.js";
import { costOf, type Dimension } from "../dimensions.js";
import type { Estimate } from "../options.js";
import type { Blocker, DimensionSnapshot, Store } from "./types.js";

/** One dimension's bucket: its shape (refill scaled by `share`) and state in one object. */
interface Bucket extends BucketShape, BucketState {
  /**
   * The level by this limiter's own count, while headers hold `level` below
   * it: they never move it, and never raise `level` above it. `undefined`:
   * the two are the same, and admission updates one state instead of two.
   */
  own: BucketState | undefined;
  dimension: Dimension;
  /** Refill rate actually used: `dimension.limit * share`. */
  limit: number;
  windowMs: number;
  capacity: number;
  /** Fraction of the rate this client may use (others draw on the same key). */
  share: number;
  /** No admission with a positive cost before this monotonic time. */
  pausedUntil: number;
}

/** Bucket state in this process: synchronous, so admission allocates nothing. */
export class MemoryStore implements Store {
  private buckets: Bucket[] = [];
  private readonly byName = new Map<string, Bucket>();
  private concurrency: number | undefined;
  private inUse = 0;

  constructor(
    private readonly clock: Clock,
    /** Fraction of capacity a new dimension starts with. */
    private readonly initialFraction: number,
  ) {}

  configure(dimensions: readonly Dimension[], concurrency: number | undefined): void {
    const now = this.clock.now();
    const buckets = dimensions.map((dimension) => {
      const kept = this.byName.get(dimension.name);
      // A dimension that changed what it counts starts afresh.
      if (kept?.dimension.unit !== dimension.unit) {
        const level = dimension.capacity * this.initialFraction;
        return { dimension, limit: dimension.limit, windowMs: dimension.windowMs, capacity: dimension.capacity, level, at: now, own: undefined, share: 1, pausedUntil: 0 };
      }
      // Refill the elapsed time at the old rate before the new shape applies.
      refill(kept, now);
      kept.dimension = dimension;
      kept.limit = dimension.limit * kept.share;
      kept.windowMs = dimension.windowMs;
      kept.capacity = dimension.capacity;
      kept.level = Math.min(kept.level, dimension.capacity);
      if (kept.own) kept.own.level = Math.min(kept.own.level, dimension.capacity);
      return kept;
    });
    this.byName.clear();
    for (const bucket of buckets) this.byName.set(bucket.dimension.name, bucket);
    this.buckets = buckets;
    this.concurrency = concurrency;
  }

  take(estimate: Estimate, now: number): boolean {
    const buckets = this.buckets;
    if (this.concurrency !== undefined && this.inUse >= this.concurrency) return false;
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const cost = costOf(bucket.dimension.unit, estimate);
      refill(bucket, now);
      if (!covers(bucket.level, cost) || (cost > 0 && bucket.pausedUntil > now)) return false;
    }
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const cost = costOf(bucket.dimension.unit, estimate);
      bucket.level -= cost;
      if (bucket.own) bucket.own.level -= cost;
    }
    this.inUse++;
    return true;
  }

  blocker(estimate: Estimate): Blocker {
    const now = this.clock.now();
    let dimension = "";
    let waitMs = 0;
    for (const bucket of this.buckets) {
      const cost = costOf(bucket.dimension.unit, estimate);
      const paused = cost > 0 ? bucket.pausedUntil - now : 0;
      const wait = Math.max(msUntilCovered(bucket, bucket, now, cost), paused);
      if (wait > waitMs) {
        waitMs = wait;
        dimension = bucket.dimension.name;
      }
    }
    if (waitMs === 0 && this.concurrency !== undefined && this.inUse >= this.concurrency) {
      return { dimension: "concurrency", waitMs: Infinity };
    }
    return { dimension, waitMs };
  }

  give(name: string, amount: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    // A refund can be added as of the bucket's last update: levels are capped
    // when read, and min(cap, min(cap, l + r·t1) + a + r·t2) equals
    // min(cap, l + a + r·(t1 + t2)) for a >= 0, so no clock read is needed. An
    // extra charge must refill to now first, or a bucket that sat full would
    // absorb it in refill it never had room for.
    if (amount < 0) refill(bucket, this.clock.now());
    bucket.level = Math.min(bucket.level + amount, bucket.capacity);
    if (bucket.own) bucket.own.level = Math.min(bucket.own.level + amount, bucket.capacity);
  }

  level(name: string): number | undefined {
    const bucket = this.byName.get(name);
    return bucket && levelAt(bucket, bucket, this.clock.now());
  }

  lower(name: string, level: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    refill(bucket, this.clock.now());
    if (level < bucket.level) setBelowOwn(bucket, level);
  }

  resync(name: string, level: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    refill(bucket, this.clock.now());
    const own = bucket.own?.level ?? bucket.level;
    if (level >= own) {
      bucket.level = own;
      bucket.own = undefined;
    } else setBelowOwn(bucket, level);
  }

  setShare(name: string, share: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    refill(bucket, this.clock.now());
    bucket.share = share;
    bucket.limit = bucket.dimension.limit * share;
  }

  pause(name: string, until: number): void {
    const bucket = this.byName.get(name);
    if (bucket && until > bucket.pausedUntil) bucket.pausedUntil = until;
  }

  releaseSlot(): void {
    if (this.inUse > 0) this.inUse--;
  }

  slotsInUse(): number {
    return this.inUse;
  }

  snapshot(): Record<string, DimensionSnapshot> {
    const now = this.clock.now();
    const view: Record<string, DimensionSnapshot> = {};
    for (const bucket of this.buckets) {
      const { name, limit, windowMs, capacity } = bucket.dimension;
      view[name] = { limit, windowMs, capacity, available: levelAt(bucket, bucket, now) };
    }
    return view;
  }
}

/** Refills both the level and the own count to `now`; once both are full they are one again. */
function refill(bucket: Bucket, now: number): void {
  advance(bucket, bucket, now);
  const own = bucket.own;
  if (!own) return;
  advance(bucket, own, now);
  if (bucket.level >= own.level) bucket.own = undefined;
}

/** Sets a level below the own count, which starts being kept apart if it was not. */
function setBelowOwn(bucket: Bucket, level: number): void {
  bucket.own ??= { level: bucket.level, at: bucket.at };
  bucket.level = level;
}
