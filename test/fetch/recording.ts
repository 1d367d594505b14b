import type { Estimate, Limiter, Reservation, SyncOptions, Usage } from "../../src/index.js";
import type { Admitter } from "../../src/fetch/index.js";

/** One admission as the limited fetch made it, and what it did with the reservation after. */
export interface Recorded {
  readonly estimate: Estimate;
  /** Every `settle`, in order. */
  readonly settled: Usage[];
  /** The status of every `sync`. */
  readonly synced: (number | undefined)[];
  released: boolean;
}

/** A limiter whose every admission through the fetch is recorded (the limiter still admits, settles, releases). */
export function recording(limiter: Limiter): { admitter: Admitter; calls: Recorded[] } {
  const calls: Recorded[] = [];
  const admitter: Admitter = {
    async acquire(estimate, options) {
      const reservation = await limiter.acquire(estimate, options);
      const record: Recorded = { estimate, settled: [], synced: [], released: false };
      calls.push(record);
      const recorded: Reservation = {
        estimate,
        get signal() {
          return reservation.signal;
        },
        get released() {
          return reservation.released;
        },
        sync(headers, syncOptions?: SyncOptions) {
          record.synced.push(syncOptions?.status);
          return reservation.sync(headers, syncOptions);
        },
        settle(used) {
          record.settled.push(used);
          reservation.settle(used);
        },
        refund: () => reservation.refund(),
        release() {
          record.released = true;
          reservation.release();
        },
      };
      return recorded;
    },
  };
  return { admitter, calls };
}

/** Waits until `check` holds, for state a response's background read settles (no timers: promise turns only). */
export async function eventually(check: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error("the condition did not hold");
}
