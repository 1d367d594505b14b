import type { Meter } from "./meter.js";

/** What a header-carrying response is tied to: the admission that sent it. */
export interface SyncOrigin {
  /** Admissions counted before and including the request (freshness order). */
  readonly seq: number;
  /** Monotonic time the request was admitted; `undefined`: the headers are taken as current. */
  readonly admittedAtMs: number | undefined;
  /** The meter's `admitted` total right after the request was admitted; `undefined` if it predates the meter. */
  markOf(meter: Meter): number | undefined;
}
