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
 * Each draw may come with a wider delay than `delayMs` (the event loop lags),
 * and a stall of the loop holds back what was still on its way: arrivals stay
 * in the order of the batches either way.
 */
export class UnseenDraws {
  /** Sum of the costs still on their way. */
  total = 0;
  private readonly costs = new Float64Array(SLOTS);
  private readonly arrivals = new Float64Array(SLOTS);
  /** When each batch took its first draw. */
  private readonly opened = new Float64Array(SLOTS);
  private first = 0;
  private size = 0;
  private readonly batchMs: number;

  constructor(private readonly delayMs: number) {
    this.batchMs = delayMs / BATCHES_PER_DELAY;
  }

  /** A draw of `cost` admitted at `now`, which reaches the provider within `delayMs` (at least the constructor's). */
  add(cost: number, now: number, delayMs = this.delayMs): void {
    this.total += cost;
    // A full ring folds the draw into the newest batch, which arrives last: later, never earlier.
    const newest = (this.first + this.size - 1) % SLOTS;
    // Never before the newest batch: a narrowing allowance must not reorder arrivals.
    const arrival = this.size === 0 ? now + delayMs : Math.max(now + delayMs, this.arrivals[newest]!);
    if (this.size === 0 || (now >= this.opened[newest]! + this.batchMs && this.size < SLOTS)) {
      const slot = (this.first + this.size) % SLOTS;
      this.costs[slot] = cost;
      this.arrivals[slot] = arrival;
      this.opened[slot] = now;
      this.size++;
      return;
    }
    this.costs[newest]! += cost;
    this.arrivals[newest] = arrival;
  }

  /**
   * The process could send nothing for `ms` at some time after `since` (its
   * timers fired that late): every batch not yet arrived by `since` arrives
   * that much later.
   */
  stalled(since: number, ms: number): void {
    for (let i = this.size - 1; i >= 0; i--) {
      const slot = (this.first + i) % SLOTS;
      // Arrivals are in order: the first one due by `since` ends the batches held back.
      if (this.arrivals[slot]! <= since) return;
      this.arrivals[slot]! += ms;
    }
  }

  /**
   * `amount` of a draw made at `drawnAt` has surely arrived (the call's
   * response came back, or it completed with a refund). It is taken from the batch that holds that draw, the
   * oldest one still to arrive after the draw would: never from a batch of
   * later draws (those may still be on their way), and not at all once the
   * draw's batch has arrived (the call was never counted here).
   */
  arrivedEarly(amount: number, drawnAt: number): void {
    // The draw went into the newest batch open at `drawnAt`; once that one has arrived, every batch left
    // opened later.
    for (let i = this.size - 1; i >= 0; i--) {
      const slot = (this.first + i) % SLOTS;
      if (this.opened[slot]! > drawnAt) continue;
      const taken = Math.min(amount, this.costs[slot]!);
      this.costs[slot]! -= taken;
      this.total -= taken;
      if (i === 0) this.dropArrived();
      return;
    }
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

  /** Every batch due by `t` has arrived. */
  arriveBy(t: number): void {
    while (this.nextArrival() <= t) this.arriveNext();
  }

  /** Oldest batches emptied by refunds go, so the next arrival is one that still holds something. */
  private dropArrived(): void {
    while (this.size > 0 && this.costs[this.first]! <= 0) this.arriveNext();
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
