/**
 * Draws the provider may not have counted yet. An admitted call reaches the
 * provider up to `delayMs` later (connections opening, TLS, proxies, a busy
 * event loop), and calls admitted together arrive spread out. Until a draw
 * arrives, the provider's bucket may sit full and lose its refill to the cap,
 * refill this limiter would otherwise credit. A bucket fed at admission with
 * its draws counted as arriving `delayMs` late stays at or below the
 * provider's level for any delay in [0, `delayMs`]; its level is the local
 * one capped at capacity less the draws still on their way, which this
 * tracks. Nothing changes while the bucket is below that cap, so the price is
 * paid only just after a full bucket, never on the sustained rate.
 *
 * Draws are kept in a few batches (a fixed ring: nothing allocated per
 * admission), each with the time by which all of it has arrived; a batch
 * takes draws for a fraction of `delayMs`, so a burst in one instant is one
 * batch, exact, and a batch never arrives earlier than its last draw would.
 */
export class UnseenDraws {
  /** Sum of the costs still on their way. */
  total = 0;
  private readonly costs = new Float64Array(SLOTS);
  private readonly arrivals = new Float64Array(SLOTS);
  /** When the newest batch took its first draw. */
  private newestOpened = -Infinity;
  private first = 0;
  private size = 0;
  private readonly batchMs: number;

  constructor(private readonly delayMs: number) {
    this.batchMs = delayMs / BATCHES_PER_DELAY;
  }

  /** A draw of `cost` admitted at `now`. */
  add(cost: number, now: number): void {
    this.total += cost;
    // A full ring folds the draw into the newest batch, which arrives last: later, never earlier.
    if (this.size === 0 || (now >= this.newestOpened + this.batchMs && this.size < SLOTS)) {
      const slot = (this.first + this.size) % SLOTS;
      this.costs[slot] = cost;
      this.arrivals[slot] = now + this.delayMs;
      this.newestOpened = now;
      this.size++;
      return;
    }
    const newest = (this.first + this.size - 1) % SLOTS;
    this.costs[newest]! += cost;
    this.arrivals[newest] = now + this.delayMs;
  }

  /**
   * `amount` of what is on its way has surely arrived (a refund: the call
   * completed). Taken from the oldest batches, which keeps the total at or
   * above what is truly on its way whichever batch held the call.
   */
  arrivedEarly(amount: number): void {
    let left = Math.min(amount, this.total);
    this.total -= left;
    while (left > 0 && this.size > 0) {
      const cost = this.costs[this.first]!;
      if (cost > left) {
        this.costs[this.first] = cost - left;
        return;
      }
      left -= cost;
      this.first = (this.first + 1) % SLOTS;
      this.size--;
    }
    if (this.size === 0) this.total = 0;
  }

  /** When the oldest batch has surely arrived; `Infinity` when none is on its way. */
  nextArrival(): number {
    return this.size === 0 ? Infinity : this.arrivals[this.first]!;
  }

  /** The oldest batch has arrived: it no longer holds the cap down. */
  arriveNext(): void {
    if (this.size === 0) return;
    this.total -= this.costs[this.first]!;
    this.first = (this.first + 1) % SLOTS;
    this.size--;
    // No float residue once nothing is on its way.
    if (this.size === 0) this.total = 0;
  }

  /** Arrival time of the `i`-th oldest batch (`i` < count), for waits that look ahead. */
  arrivalAt(i: number): number {
    return this.arrivals[(this.first + i) % SLOTS]!;
  }

  /** Cost of the `i`-th oldest batch. */
  costAt(i: number): number {
    return this.costs[(this.first + i) % SLOTS]!;
  }

  /** Batches on their way. */
  get count(): number {
    return this.size;
  }
}

/** Batches kept at most; about `BATCHES_PER_DELAY` + 1 are live at a steady rate. */
const SLOTS = 12;
/** How finely arrivals are told apart: a batch takes draws for `delayMs / 8`. */
const BATCHES_PER_DELAY = 8;
