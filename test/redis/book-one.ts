import type { SharedLayout, SharedStore } from "../../src/store/shared-store.js";

/** What a call booking one request says about it. */
export interface SingleBooking {
  /** Whether its costs were taken (admitted now, or booked for later). */
  readonly booked: boolean;
  readonly waitMs: number;
  readonly dimension: string | undefined;
  readonly lease: string | undefined;
  /** `undefined` when nothing was taken. */
  readonly marks: readonly number[] | undefined;
  readonly levels: readonly number[];
}

/** Books one request: `costs` has one cost per dimension. */
export async function bookOne(store: SharedStore, of: SharedLayout, costs: readonly number[]): Promise<SingleBooking> {
  const booking = await store.book(of, [costs]);
  return {
    booked: booking.admitted === 1 || booking.booked,
    waitMs: booking.waitMs,
    dimension: booking.dimension,
    lease: booking.leases[0],
    marks: booking.marks[0],
    levels: booking.levels,
  };
}
