import { advance, covers, levelAt, msUntilCovered, type BucketShape, type BucketState } from "../core/bucket.js";
import type { Clock } from "../core/clock.js";
import { type Dimension } from "../core/budget.js";
import { costOf } from "../core/amounts.js";
import type { Estimate } from "../core/limits.js";
import type { LoopLag } from "../core/loop-lag.js";
import type { Blocker, DimensionSnapshot } from "./types.js";
import { UnseenDraws } from "./unseen-draws.js";

/** One dimension's bucket: its shape (refill scaled by `share`) and state in one object. */
export interface Bucket extends BucketShape, BucketState {
  /**
   * The level by this limiter's own count, refilled at the full rate: what it
   * alone would leave. Headers never move it, and never raise `level` above
   * it. `undefined` while it equals `level` and both refill alike (full share,
   * no window): admission then updates one state instead of two.
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
  /** Learned from headers: the provider meters this dimension in fixed windows, not as a bucket. */
  window: FixedWindow | undefined;
  /** Everything refunded so far (header sync tells its own refunds from what the provider's level shows). */
  refunded: number;
  /** Admitted draws that may not have reached the provider; `undefined` when calls arrive at once. */
  unseen: UnseenDraws | undefined;
  /** What admission leaves untouched while the start-up probe holds the burst back (0: none). */
  floor: number;
}

/** Buckets several `LocalBuckets` hold as one (a limiter group's shared dimensions; see `BucketPool`). */
export interface PooledBuckets {
  /** Whether dimension `name` is one of the shared ones. */
  holds(name: string): boolean;
  /** The shared bucket of dimension `name`, once some member made it. */
  get(name: string): Bucket | undefined;
  /** A member made (or remade, for another unit) a shared bucket. */
  set(bucket: Bucket): void;
}

/** A fixed window's timing: nothing refills until `resetAt`, then the level is the whole capacity again. */
interface FixedWindow {
  /** When the current window began (charges made before it are no longer counted). */
  startedAt: number;
  resetAt: number;
  periodMs: number;
}

/**
 * Bucket state in this process: synchronous, so admission allocates nothing.
 * Every method that admits takes from all dimensions and the concurrency slot together, or from none.
 */
export class LocalBuckets {
  private buckets: Bucket[] = [];
  private readonly byName = new Map<string, Bucket>();
  private concurrency: number | undefined;
  private inUse = 0;

  constructor(
    private readonly clock: Clock,
    /** Fraction of capacity a new dimension starts with. */
    private readonly initialFraction: number,
    /** Longest time from admission until a call reaches the provider. */
    private readonly arrivalDelayMs: number,
    /** A limiter group's shared buckets: the dimensions it holds are these very objects, drawn by every member. */
    private readonly pool?: PooledBuckets,
    /** The event loop's lag: it widens `arrivalDelayMs` while it lasts (none: the allowance is `arrivalDelayMs`). */
    private readonly lag?: LoopLag,
  ) {
    // A group's shared bucket is held back by every member's report of a stall: longer at worst, never shorter.
    if (arrivalDelayMs > 0) lag?.onStall((since, ms) => this.stalled(since, ms));
  }

  /** Ms a call admitted at `now` may take to reach the provider: `arrivalDelayMs` widened by the loop's lag. */
  arrivalAllowanceMs(now: number): number {
    return this.arrivalDelayMs > 0 && this.lag ? this.arrivalDelayMs + this.lag.widening(now) : this.arrivalDelayMs;
  }

  /** The process sent nothing for `ms` after `since`: the draws still on their way then arrive that much later. */
  private stalled(since: number, ms: number): void {
    for (const bucket of this.buckets) bucket.unseen?.stalled(since, ms);
  }

  /** Sets the dimensions (state of ones kept by name carries over) and the concurrency limit. */
  configure(dimensions: readonly Dimension[], concurrency: number | undefined): void {
    const now = this.clock.now();
    const buckets = dimensions.map((dimension) => {
      const pooled = this.pool?.holds(dimension.name) === true;
      const kept = this.byName.get(dimension.name) ?? (pooled ? this.pool!.get(dimension.name) : undefined);
      // A dimension that changed what it counts starts afresh.
      if (kept?.dimension.unit !== dimension.unit) {
        const level = dimension.capacity * this.initialFraction;
        const unseen = this.arrivalDelayMs > 0 ? new UnseenDraws(this.arrivalDelayMs) : undefined;
        const bucket: Bucket = {
          dimension,
          limit: dimension.limit,
          windowMs: dimension.windowMs,
          capacity: dimension.capacity,
          level,
          at: now,
          own: undefined,
          share: 1,
          pausedUntil: 0,
          window: undefined,
          refunded: 0,
          unseen,
          floor: 0,
        };
        if (pooled) this.pool!.set(bucket);
        return bucket;
      }
      // Refill the elapsed time at the old rate before the new shape applies.
      refill(kept, now);
      kept.dimension = dimension;
      kept.limit = refillRate(kept);
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

  /**
   * Takes `estimate` from every dimension and one slot if all have room at monotonic time `now`; else takes nothing.
   * `reserve`: the fraction of every dimension's capacity that must stay after the take (a priority's headroom).
   */
  take(estimate: Estimate, now: number, reserve = 0): boolean {
    const buckets = this.buckets;
    if (this.concurrency !== undefined && this.inUse >= this.concurrency) return false;
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const cost = costOf(bucket.dimension.unit, estimate);
      refill(bucket, now);
      const kept = reserve > 0 ? keptBack(bucket, reserve) : bucket.floor;
      if (!covers(bucket.level - kept, cost) || (cost > 0 && bucket.pausedUntil > now)) return false;
    }
    const allowanceMs = this.arrivalAllowanceMs(now);
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const cost = costOf(bucket.dimension.unit, estimate);
      bucket.level -= cost;
      if (bucket.own) bucket.own.level -= cost;
      if (bucket.unseen && cost > 0) bucket.unseen.add(cost, now, allowanceMs);
    }
    this.inUse++;
    return true;
  }

  /**
   * What keeps `estimate`, taken with `reserve` (see {@link take}), out now (call after `take` said no);
   * `ownOnly`: leaving out a group's shared buckets.
   */
  blocker(estimate: Estimate, reserve = 0, ownOnly = false): Blocker {
    const now = this.clock.now();
    let dimension = "";
    let waitMs = 0;
    for (const bucket of this.buckets) {
      if (ownOnly && this.pool?.holds(bucket.dimension.name)) continue;
      const cost = costOf(bucket.dimension.unit, estimate);
      // Held back by the start-up probe or a headroom, the level must refill past that as well.
      const wait = waitFor(bucket, cost, cost + (reserve > 0 ? keptBack(bucket, reserve) : bucket.floor), now);
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

  /** The longest pause a 429 put on a dimension `estimate` draws on: its name and ms from now (0: none). */
  pausedFor(estimate: Estimate): Blocker {
    const now = this.clock.now();
    let dimension = "";
    let waitMs = 0;
    for (const bucket of this.buckets) {
      const wait = costOf(bucket.dimension.unit, estimate) > 0 ? bucket.pausedUntil - now : 0;
      if (wait > waitMs) {
        waitMs = wait;
        dimension = bucket.dimension.name;
      }
    }
    return { dimension, waitMs };
  }

  /**
   * Adds `amount` to dimension `name` (a refund; negative: an extra charge), capped at capacity. Unknown names are
   * ignored.
   * `chargedAt` is when the charge was made: a fixed window that has ended since forgets it.
   */
  give(name: string, amount: number, chargedAt: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    // A refund can be added as of the bucket's last update: levels are capped
    // when read, and min(cap, min(cap, l + r·t1) + a + r·t2) equals
    // min(cap, l + a + r·(t1 + t2)) for a >= 0, so no clock read is needed
    // (with draws on their way the cap rises over time, and the right side
    // can only be lower: a refund may be credited short, never over). An
    // extra charge must refill to now first, or a bucket that sat full would
    // absorb it in refill it never had room for; so must a window, which may have ended.
    if (amount < 0 || bucket.window) refill(bucket, this.clock.now());
    // A window that has ended took its count with it: refunding its charges would over-grant.
    if (amount > 0 && bucket.window && chargedAt < bucket.window.startedAt) return;
    // What is refunded has reached the provider (the call completed): it no longer holds the cap
    // down. Applied as of the last update like the refund itself, which shifts level and cap alike.
    if (amount > 0 && bucket.unseen) bucket.unseen.arrivedEarly(amount, chargedAt);
    if (amount > 0) bucket.refunded += amount;
    bucket.level = Math.min(bucket.level + amount, bucket.capacity);
    if (bucket.own) bucket.own.level = Math.min(bucket.own.level + amount, bucket.capacity);
  }

  /** Everything refunded to dimension `name` so far (0 for an unknown name). */
  refunded(name: string): number {
    return this.byName.get(name)?.refunded ?? 0;
  }

  /** Current level of dimension `name` (refilled to now), if it exists. */
  level(name: string): number | undefined {
    const bucket = this.byName.get(name);
    if (!bucket) return undefined;
    refill(bucket, this.clock.now());
    return bucket.level;
  }

  /** A draw of `amount` on `name`, made at `chargedAt`, reached the provider: it holds the cap down no more. */
  arrived(name: string, amount: number, chargedAt: number): void {
    const bucket = this.byName.get(name);
    if (!bucket?.unseen || amount <= 0) return;
    // Refilled under the cap that held until now, which rises only from now on.
    refill(bucket, this.clock.now());
    bucket.unseen.arrivedEarly(amount, chargedAt);
  }

  /** What dimension `name` drew that may not have reached the provider yet (0 for an unknown name). */
  onTheirWay(name: string): number {
    const bucket = this.byName.get(name);
    if (!bucket) return 0;
    refill(bucket, this.clock.now());
    return pendingOf(bucket);
  }

  /** Lowers dimension `name` to at most `level`; never raises it. */
  lower(name: string, level: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    refill(bucket, this.clock.now());
    if (level < bucket.level) setBelowOwn(bucket, level);
  }

  /**
   * Sets dimension `name` to `level` as a fresher response reports it, but
   * never above this limiter's own count (so earlier corrections do not pile up).
   */
  resync(name: string, level: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    refill(bucket, this.clock.now());
    const own = bucket.own?.level ?? bucket.level;
    if (level < own) setBelowOwn(bucket, level);
    else bucket.level = own;
  }

  /** Refills dimension `name` at `share` (0..1] of its rate: other clients draw on the same key. */
  setShare(name: string, share: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    refill(bucket, this.clock.now());
    bucket.share = share;
    bucket.limit = refillRate(bucket);
    keepOwnApart(bucket);
  }

  /** The fraction of its rate dimension `name` refills at (see {@link setShare}); 1 for an unknown name. */
  share(name: string): number {
    return this.byName.get(name)?.share ?? 1;
  }

  /**
   * The provider meters dimension `name` in fixed windows of `periodMs`, the
   * current one begun at or before monotonic time `startedBy`: nothing refills
   * until it ends, then the level is the whole capacity.
   */
  alignWindow(name: string, startedBy: number, periodMs: number): void {
    const bucket = this.byName.get(name);
    if (!bucket) return;
    const now = this.clock.now();
    refill(bucket, now);
    const window = bucket.window;
    // A reading of a window that already ended (a response stamped before the boundary) changes nothing.
    if (window && startedBy <= window.startedAt - periodMs / 2) return;
    if (!window || startedBy >= window.startedAt + periodMs / 2) {
      // A newer window than the one kept here: it began already; the sync that follows sets the level.
      bucket.window = { startedAt: startedBy, resetAt: startedBy + periodMs, periodMs };
      fill(bucket, now);
      bucket.limit = refillRate(bucket);
      keepOwnApart(bucket);
      refill(bucket, now);
      return;
    }
    // The same window: each reading is a bound on when it ends; the earliest is the tightest.
    window.resetAt = Math.min(window.resetAt, startedBy + periodMs);
    window.periodMs = periodMs;
  }

  /** The headers showed dimension `name` to be a continuous bucket after all: it refills again, with no reset ahead. */
  endWindows(name: string): void {
    const bucket = this.byName.get(name);
    if (!bucket?.window) return;
    refill(bucket, this.clock.now());
    bucket.window = undefined;
    bucket.limit = refillRate(bucket);
  }

  /**
   * The start-up probe has sent its calls: until {@link releaseFloors}, admission
   * leaves every level where it is now and takes only what refills above it. The
   * burst waits for news of the key; the rate goes on (the refill a full bucket would lose).
   */
  holdFloors(): void {
    const now = this.clock.now();
    for (const bucket of this.buckets) {
      // A group's shared bucket is not this member's to hold: the others draw on it too.
      if (this.pool?.holds(bucket.dimension.name)) continue;
      refill(bucket, now);
      bucket.floor = Math.max(0, bucket.level);
    }
  }

  /** News of the key: the whole level is admissible again. */
  releaseFloors(): void {
    for (const bucket of this.buckets) bucket.floor = 0;
  }

  /** No admission with a positive cost on `name` before monotonic time `until`. */
  pause(name: string, until: number): void {
    const bucket = this.byName.get(name);
    if (bucket && until > bucket.pausedUntil) bucket.pausedUntil = until;
  }

  /** Ends the pauses of `names` (`undefined`: of every dimension). */
  unpause(names: readonly string[] | undefined): void {
    for (const bucket of this.buckets)
      if (names === undefined || names.includes(bucket.dimension.name)) bucket.pausedUntil = 0;
  }

  /** Frees one concurrency slot (with a shared store, the reservation's lease). */
  releaseSlot(): void {
    if (this.inUse > 0) this.inUse--;
  }

  /** Slots in use. */
  slotsInUse(): number {
    return this.inUse;
  }

  /** The current level of every dimension. */
  snapshot(): Record<string, DimensionSnapshot> {
    const now = this.clock.now();
    const view: Record<string, DimensionSnapshot> = {};
    for (const bucket of this.buckets) view[bucket.dimension.name] = snapshotOf(bucket, now);
    return view;
  }
}

/** What a take must leave in `bucket`: the start-up probe's floor, or the headroom `reserve` of its capacity. */
function keptBack(bucket: Bucket, reserve: number): number {
  return Math.max(bucket.floor, reserve * bucket.capacity);
}

/** A bucket's state at monotonic `now` (refilled to it). */
export function snapshotOf(bucket: Bucket, now: number): DimensionSnapshot {
  const { limit, windowMs, capacity } = bucket.dimension;
  refill(bucket, now);
  const available = bucket.level;
  return bucket.window
    ? { limit, windowMs, capacity, available, resetInMs: bucket.window.resetAt - now }
    : { limit, windowMs, capacity, available };
}

/**
 * Ms from `now` until `bucket` covers `needed` and admits a positive `cost` (its pause over): 0 when it does now.
 */
export function waitFor(bucket: Bucket, cost: number, needed: number, now: number): number {
  if (bucket.unseen) refill(bucket, now);
  const paused = cost > 0 ? bucket.pausedUntil - now : 0;
  const refilled = bucket.unseen
    ? msUntilCoveredUnseen(bucket, bucket.unseen, now, needed)
    : msUntilCovered(bucket, bucket, now, needed);
  return Math.max(bucket.window && refilled > 0 ? bucket.window.resetAt - now : refilled, paused);
}

/** The rate the level refills at: its share of the dimension's, none inside a fixed window. */
function refillRate(bucket: Bucket): number {
  return bucket.window ? 0 : bucket.dimension.limit * bucket.share;
}

/**
 * Refills the level and the own count to `now`. The own count refills at the
 * full rate: it is what this limiter alone would leave, so a share learned
 * too low costs refill only until the next sync lifts the level back to it.
 * A fixed window that ended restores both to the whole capacity.
 */
function refill(bucket: Bucket, now: number): void {
  const { window, unseen } = bucket;
  if (window && now >= window.resetAt) {
    const periods = Math.floor((now - window.resetAt) / window.periodMs);
    window.startedAt = window.resetAt + periods * window.periodMs;
    window.resetAt = window.startedAt + window.periodMs;
    // Draws that arrived before the window began were counted in the last one.
    unseen?.arriveBy(window.startedAt);
    fill(bucket, now);
  }
  // The cap rises as draws arrive: refill up to each arrival under the cap then in force.
  if (unseen) {
    for (let arrival = unseen.nextArrival(); arrival <= now; arrival = unseen.nextArrival()) {
      refillUnderCap(bucket, arrival);
      unseen.arriveNext();
    }
  }
  refillUnderCap(bucket, now);
  const own = bucket.own;
  // Refilled alike and caught up: one state serves again.
  if (own && bucket.level >= own.level && bucket.limit === bucket.dimension.limit) bucket.own = undefined;
}

/** Refills the level and the own count to `t`, up to capacity less the draws still on their way. */
function refillUnderCap(bucket: Bucket, t: number): void {
  const pending = pendingOf(bucket);
  advance(bucket, bucket, t, capUnder(bucket, bucket, pending));
  if (bucket.own) advance(bucket.dimension, bucket.own, t, capUnder(bucket, bucket.own, pending));
}

/**
 * The most `state` may refill to while `pending` is on its way (which may find
 * the provider's bucket full). It stops refill, never takes away: a capacity
 * lowered under draws in flight must not turn them into debt.
 */
function capUnder(bucket: Bucket, state: BucketState, pending: number): number {
  const cap = bucket.capacity - pending;
  return cap >= state.level ? cap : Math.min(state.level, bucket.capacity);
}

/** Draws still on their way, which may find the provider's bucket full. */
function pendingOf(bucket: Bucket): number {
  return bucket.unseen?.total ?? 0;
}

/**
 * {@link msUntilCovered} under a cap that rises as draws arrive: a cost above
 * the cap in force waits for the arrivals that lift it.
 */
function msUntilCoveredUnseen(bucket: Bucket, unseen: UnseenDraws, now: number, cost: number): number {
  let pending = unseen.total;
  let t = now;
  let level = levelAt(bucket, bucket, now, capUnder(bucket, bucket, pending));
  if (covers(level, cost)) return 0;
  if (bucket.limit <= 0) return Infinity;
  const rate = bucket.limit / bucket.windowMs;
  for (let i = 0; i < unseen.count; i++) {
    const arrival = unseen.arrivalAt(i);
    const cap = bucket.capacity - pending;
    if (cost <= cap && t + (cost - level) / rate <= arrival) break;
    level = Math.max(level, Math.min(cap, level + (arrival - t) * rate));
    t = arrival;
    pending -= unseen.costAt(i);
  }
  return t - now + (cost - level) / rate;
}

/** A window begins: the level and the own count are the whole capacity, less draws that will count in it. */
function fill(bucket: Bucket, now: number): void {
  const cap = bucket.capacity - pendingOf(bucket);
  bucket.level = cap;
  bucket.at = now;
  if (bucket.own) {
    bucket.own.level = cap;
    bucket.own.at = now;
  }
}

/** Starts keeping the own count apart (as the level is now) once the two no longer move together. */
function keepOwnApart(bucket: Bucket): void {
  if (bucket.own === undefined && bucket.limit !== bucket.dimension.limit)
    bucket.own = { level: bucket.level, at: bucket.at };
}

/** Sets a level below the own count, which starts being kept apart if it was not. */
function setBelowOwn(bucket: Bucket, level: number): void {
  bucket.own ??= { level: bucket.level, at: bucket.at };
  bucket.level = level;
}
