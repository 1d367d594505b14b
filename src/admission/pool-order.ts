import type { BucketPool } from "../buckets/bucket-pool.js";
import type { Estimate } from "../core/limits.js";
import type { Waiter } from "./waiter.js";

/** A member's admission as the shared buckets' order sees it. */
export interface PoolSeat {
  /** Ms before `waiter`, this member's head, could be admitted on its own budgets alone (not the shared ones). */
  ownWaitMs(waiter: Waiter): number;
  /** The order or the shared levels changed: try the head again. */
  retry(): void;
}

/** A member's head waiting, in the order heads began to wait. */
interface Turn {
  readonly seat: PoolSeat;
  readonly waiter: Waiter;
}

/**
 * One FIFO on a limiter group's shared buckets across its members: each
 * member's queue is its own, and a member's head that waits takes a turn
 * here. A member may draw on the shared buckets only where that delays no
 * older turn: after its draw they still hold the older heads by the time
 * those could be admitted on their own budgets. So a large call waiting on a
 * shared `tpd` is not overtaken there by other members' small calls, while a
 * head held back by its own budget keeps nobody else from the shared room.
 */
export class PoolOrder {
  /** Oldest first; one per member at most (its head). */
  private readonly turns: Turn[] = [];

  constructor(readonly buckets: BucketPool) {}

  /** `seat`'s head `waiter` could not be admitted now: it takes a turn, or keeps the one it has. */
  waiting(seat: PoolSeat, waiter: Waiter): void {
    const i = this.indexOf(seat);
    if (i >= 0 && this.turns[i]!.waiter === waiter) return;
    if (i >= 0) this.turns.splice(i, 1);
    this.turns.push({ seat, waiter });
  }

  /** `waiter` left `seat`'s queue (admitted, aborted, timed out, closed): its turn ends, later ones may go. */
  left(seat: PoolSeat, waiter: Waiter): void {
    const i = this.indexOf(seat);
    if (i < 0 || this.turns[i]!.waiter !== waiter) return;
    this.turns.splice(i, 1);
    this.changed(seat);
  }

  /** Levels rose on `seat`'s side (a refund, a sync): the other members' heads may fit now. */
  changed(seat: PoolSeat): void {
    if (this.turns.length === 0) return;
    for (const turn of [...this.turns]) if (turn.seat !== seat) turn.seat.retry();
  }

  /**
   * 0 when `seat` may draw `estimate` on the shared buckets at monotonic `now`
   * (its own turn, if it has one, and the newer ones do not count); else the ms
   * after which the shared buckets hold it and every older turn at once.
   */
  holdMs(seat: PoolSeat, estimate: Estimate, now: number): number {
    if (this.turns.length === 0 || !this.buckets.draws(estimate)) return 0;
    // Older turns in order, each with the ones before it: a conservative FIFO (never lets a newer call delay one).
    const ahead: Estimate[] = [estimate];
    let hold = 0;
    for (const turn of this.turns) {
      if (turn.seat === seat) break;
      ahead.push(turn.waiter.estimate);
      const wait = this.buckets.waitMs(ahead, now);
      if (wait > 0 && wait > turn.seat.ownWaitMs(turn.waiter)) hold = Math.max(hold, wait);
    }
    return hold;
  }

  private indexOf(seat: PoolSeat): number {
    for (let i = 0; i < this.turns.length; i++) if (this.turns[i]!.seat === seat) return i;
    return -1;
  }
}
