/**
 * A provider's token bucket, written here apart from src: full at the start,
 * refilling continuously at `limit / windowMs` up to `capacity`, charged when
 * a call arrives and refunded when it completes.
 */
export class ProviderBucket {
  private level: number;
  private at = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly capacity: number,
  ) {
    this.level = capacity;
  }

  /** Charges `cost` at `now`; `false` is a 429 (the level could not cover it). */
  charge(cost: number, now: number): boolean {
    this.refillTo(now);
    if (this.level + 1e-6 * Math.max(1, cost) < cost) return false;
    this.level -= cost;
    return true;
  }

  refund(amount: number, now: number): void {
    this.refillTo(now);
    this.level = Math.min(this.capacity, this.level + amount);
  }

  /** The level at `now`, as its headers report it. */
  levelAt(now: number): number {
    this.refillTo(now);
    return this.level;
  }

  private refillTo(now: number): void {
    this.level = Math.min(this.capacity, this.level + ((now - this.at) * this.limit) / this.windowMs);
    this.at = now;
  }
}
