import { advance, covers, levelAt, msUntilCovered, type BucketState } from "../bucket.js";
import type { Clock } from "../clock.js";
import { costOf, type Dimension } from "../dimensions.js";
import type { Estimate } from "../options.js";
import type { Blocker, DimensionSnapshot, Store } from "./types.js";

/** Bucket state in this process: synchronous, so admission allocates nothing. */
export class MemoryStore implements Store {
  private dimensions: readonly Dimension[] = [];
  /** Aligned with `dimensions`. */
  private states: BucketState[] = [];
  private readonly byName = new Map<string, { dimension: Dimension; state: BucketState }>();
  private concurrency: number | undefined;
  private inUse = 0;

  constructor(
    private readonly clock: Clock,
    /** Fraction of capacity a new dimension starts with. */
    private readonly initialFraction: number,
  ) {}

  configure(dimensions: readonly Dimension[], concurrency: number | undefined): void {
    const now = this.clock.now();
    const states = dimensions.map((dimension) => {
      const kept = this.byName.get(dimension.name);
      if (!kept) return { level: dimension.capacity * this.initialFraction, at: now };
      // Refill the elapsed time at the old rate before the new shape applies.
      advance(kept.dimension, kept.state, now);
      kept.state.level = Math.min(kept.state.level, dimension.capacity);
      return kept.state;
    });
    this.byName.clear();
    dimensions.forEach((dimension, i) => this.byName.set(dimension.name, { dimension, state: states[i]! }));
    this.dimensions = dimensions;
    this.states = states;
    this.concurrency = concurrency;
  }

  take(estimate: Estimate): boolean {
    const { dimensions, states } = this;
    if (this.concurrency !== undefined && this.inUse >= this.concurrency) return false;
    const now = this.clock.now();
    for (let i = 0; i < dimensions.length; i++) {
      const dimension = dimensions[i]!;
      const state = states[i]!;
      advance(dimension, state, now);
      if (!covers(state.level, costOf(dimension.unit, estimate))) return false;
    }
    for (let i = 0; i < dimensions.length; i++) {
      states[i]!.level -= costOf(dimensions[i]!.unit, estimate);
    }
    this.inUse++;
    return true;
  }

  blocker(estimate: Estimate): Blocker {
    const now = this.clock.now();
    let dimension = "";
    let waitMs = 0;
    this.dimensions.forEach((d, i) => {
      const wait = msUntilCovered(d, this.states[i]!, now, costOf(d.unit, estimate));
      if (wait > waitMs) {
        waitMs = wait;
        dimension = d.name;
      }
    });
    if (waitMs === 0 && this.concurrency !== undefined && this.inUse >= this.concurrency) {
      return { dimension: "concurrency", waitMs: Infinity };
    }
    return { dimension, waitMs };
  }

  give(name: string, amount: number): void {
    const entry = this.byName.get(name);
    if (!entry) return;
    // Refill to now first: a refund on a stale timestamp would over-grant.
    advance(entry.dimension, entry.state, this.clock.now());
    entry.state.level = Math.min(entry.state.level + amount, entry.dimension.capacity);
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
    this.dimensions.forEach((d, i) => {
      view[d.name] = { limit: d.limit, windowMs: d.windowMs, capacity: d.capacity, available: levelAt(d, this.states[i]!, now) };
    });
    return view;
  }
}
