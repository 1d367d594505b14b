import { costOf } from "../core/amounts.js";
import type { Estimate } from "../core/limits.js";
import { snapshotOf, waitFor, type Bucket, type PooledBuckets } from "./local-buckets.js";
import type { DimensionSnapshot } from "./types.js";

/**
 * A limiter group's shared buckets: every member's `LocalBuckets` holds the
 * dimensions named with `prefix` as these very objects, so one member's
 * `take` checks and draws its own buckets and the shared ones in one step
 * (JavaScript runs it to the end: no other admission comes between).
 */
export class BucketPool implements PooledBuckets {
  private readonly byName = new Map<string, Bucket>();

  constructor(
    /** The names of the shared dimensions start with it (`project-`: as OpenAI's project-scoped headers are read). */
    readonly prefix: string,
  ) {}

  holds(name: string): boolean {
    return name.startsWith(this.prefix);
  }

  get(name: string): Bucket | undefined {
    return this.byName.get(name);
  }

  set(bucket: Bucket): void {
    this.byName.set(bucket.dimension.name, bucket);
  }

  /** Whether `estimate` costs anything on a shared bucket. */
  draws(estimate: Estimate): boolean {
    for (const bucket of this.byName.values()) if (costOf(bucket.dimension.unit, estimate) > 0) return true;
    return false;
  }

  /** Ms from monotonic `now` until the shared buckets hold every one of `estimates` at once (0: they do now). */
  waitMs(estimates: readonly Estimate[], now: number): number {
    let wait = 0;
    for (const bucket of this.byName.values()) {
      let needed = 0;
      for (const estimate of estimates) needed += costOf(bucket.dimension.unit, estimate);
      if (needed > 0) wait = Math.max(wait, waitFor(bucket, needed, needed, now));
    }
    return wait;
  }

  /** The level of every shared bucket at monotonic `now`, by its name without the prefix. */
  snapshot(now: number): Record<string, DimensionSnapshot> {
    const view: Record<string, DimensionSnapshot> = {};
    for (const [name, bucket] of this.byName) view[name.slice(this.prefix.length)] = snapshotOf(bucket, now);
    return view;
  }
}
