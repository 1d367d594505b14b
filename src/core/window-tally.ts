/** Buckets per window: a tenth of the window is the most the oldest part can be off by. */
const BUCKETS = 10;
const SLOTS = BUCKETS + 1;

/**
 * Sums over a sliding window, O(1) per addition and allocation-free: a ring of
 * time buckets, each a tenth of the window, plus one for the part of the
 * oldest bucket the window still covers (taken pro rata). An addition may be
 * dated in the past (a settle attributed to its admission): it lands in its
 * bucket while the ring still holds it, and is dropped once that bucket left the window.
 */
export class WindowTally {
  /** Bucket `b` is in slot `b % SLOTS`; `epochs[slot]` says which `b` the slot holds. */
  private readonly epochs: Float64Array;
  /** Slot-major: `sums[slot * columns + column]`. */
  private readonly sums: Float64Array;
  private readonly bucketMs: number;

  constructor(
    /** The window's length in ms. */
    readonly windowMs: number,
    /** How many separate sums are kept. */
    private readonly columns: number,
  ) {
    this.bucketMs = windowMs / BUCKETS;
    this.epochs = new Float64Array(SLOTS).fill(-Infinity);
    this.sums = new Float64Array(SLOTS * columns);
  }

  /** Adds `amount` to `column` at monotonic time `at`. */
  add(at: number, column: number, amount: number): void {
    const bucket = Math.floor(at / this.bucketMs);
    const slot = ((bucket % SLOTS) + SLOTS) % SLOTS;
    const held = this.epochs[slot]!;
    if (held !== bucket) {
      if (held > bucket) return; // its bucket has left the window
      this.epochs[slot] = bucket;
      this.sums.fill(0, slot * this.columns, (slot + 1) * this.columns);
    }
    this.sums[slot * this.columns + column]! += amount;
  }

  /** The sum of `column` over the window ending at monotonic time `now`. */
  sum(now: number, column: number): number {
    const position = now / this.bucketMs;
    const current = Math.floor(position);
    let total = 0;
    for (let slot = 0; slot < SLOTS; slot++) {
      const age = current - this.epochs[slot]!;
      if (age < 0 || age > BUCKETS) continue;
      const value = this.sums[slot * this.columns + column]!;
      // The oldest bucket is only partly inside the window.
      total += age === BUCKETS ? value * (1 - (position - current)) : value;
    }
    return total;
  }
}
