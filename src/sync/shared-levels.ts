import type { Meter } from "../core/meter.js";
import type { SyncOrigin } from "../core/origin.js";
import type { FailureClass } from "../headers/failures.js";
import type { RateLimitView } from "../headers/types.js";
import { broughtForward, holdBack, namedBy, type HoldTarget, type LevelSync, type PauseOrder } from "./level-sync.js";

/** A store shared by every replica, as header sync moves it (`SharedAdmission`, which writes through). */
export interface SharedLevelTarget extends HoldTarget {
  /**
   * Sets the dimension of `meter` to what a response reports: at most `remaining`, and at most `brought` less
   * what every process booked after `mark`; it may raise the level back up to the store's own count.
   */
  resync(meter: Meter, reading: { remaining: number; brought: number; mark: number | undefined }): void;
}

/**
 * Header sync of a shared store: the store discounts what every replica
 * booked after the request's mark, atomically. Every replica draws on the same
 * bucket, so there is no share to learn; the store's buckets know no windows.
 */
export class SharedLevels implements LevelSync {
  /** By meter: `seq` of the freshest response applied. */
  private readonly syncedSeq = new WeakMap<Meter, number>();

  constructor(private readonly target: SharedLevelTarget) {}

  current(seq: number): SyncOrigin {
    // Current when received: the store lowers to the remaining as it is.
    return { seq, admittedAtMs: undefined, markOf: () => undefined };
  }

  ownDraws(): undefined {
    return undefined; // other replicas' draws are not counted here
  }

  apply(view: RateLimitView, meters: readonly Meter[], origin: SyncOrigin, now: number): void {
    for (const meter of meters) {
      const remaining = view.dimensions[meter.name]?.remaining;
      if (remaining === undefined || origin.seq < (this.syncedSeq.get(meter) ?? 0)) continue;
      this.syncedSeq.set(meter, origin.seq);
      // The store discounts what every replica booked since; with the plain remaining too, the lower
      // reading wins (as in this process: see LocalLevels).
      const brought = broughtForward(meter, remaining, origin, now);
      this.target.resync(meter, { remaining, brought, mark: origin.markOf(meter) });
    }
  }

  rateLimited(failure: FailureClass, meters: readonly Meter[]): PauseOrder | undefined {
    return holdBack(failure, namedBy(failure, meters), meters, this.target);
  }
}
