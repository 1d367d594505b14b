/**
 * The contract between the limiter and a store shared by many processes (the
 * Redis store). Every method is one round trip; the store's own clock (Redis
 * `TIME`) decides refills, never a caller's.
 *
 * Admission is booked, GCRA-style: when the buckets lack room, `book` takes
 * the cost anyway (levels go below zero: they hold future admissions) and
 * says when the booking is due. Processes are then served in booking order
 * without polling; an aborted booking is given back with `adjust`.
 */

/** One dimension as the shared store meters it. */
export interface SharedDimension {
  readonly name: string;
  /** Units refilled per `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
  /** Largest level (burst). */
  readonly capacity: number;
}

/** What the caller's limiter is configured with, sent along with every call. */
export interface SharedLayout {
  readonly dimensions: readonly SharedDimension[];
  /** Leases allowed at once across every process; `undefined`: no concurrency limit. */
  readonly concurrency: number | undefined;
  /** Fraction of capacity a dimension starts with when its state is missing (new, expired or lost). */
  readonly initialFraction: number;
}

/** The outcome of {@link SharedStore.book}. Arrays are aligned with `layout.dimensions`. */
export interface Booking {
  /**
   * `0`: admitted now (with a lease when concurrency is limited). `> 0`: booked,
   * due in this many ms (no lease yet: take one with `lease` when due). When
   * `booked` is false, nothing was taken: retry after this many ms at the latest
   * (a concurrency slot was missing).
   */
  readonly waitMs: number;
  /** Whether the costs were taken. */
  readonly booked: boolean;
  /** The binding dimension when `waitMs > 0` (`"concurrency"` when a slot was missing). */
  readonly dimension: string | undefined;
  /** The lease taken with an immediate admission. */
  readonly lease: string | undefined;
  /** Per dimension, the total ever booked on it (all processes; `adjust` does not count) right after this booking. */
  readonly marks: readonly number[];
  /** Per dimension, the level right after this call (negative while bookings are pending). */
  readonly levels: readonly number[];
}

/**
 * What a limiter does while its shared store is unreachable:
 * - `"fail-closed"`: admit nothing; requests wait (or time out on `maxWaitMs`) until it is back;
 * - `"fail-open"`: admit everything, unmetered;
 * - `{ local: f }`: admit through a local limiter holding the fraction `f` of every budget
 *   (`1 / replicas` shares the quota fairly while the replicas cannot coordinate).
 */
export type StoreFailurePolicy = "fail-closed" | "fail-open" | { readonly local: number };

/** Bucket state shared by many processes. */
export interface SharedStore {
  /** How long a concurrency lease lives unless renewed, in ms. */
  readonly leaseMs: number;
  /** What the limiter does while the store is unreachable. Default `"fail-closed"`. */
  readonly onError?: StoreFailurePolicy;
  /** Refills every dimension to now and takes `costs` from all of them at once (see {@link Booking}). */
  book(layout: SharedLayout, costs: readonly number[]): Promise<Booking>;
  /**
   * Takes a concurrency lease for a booking that came due; `lease` undefined:
   * none free, retry after `retryMs`. Called only when `layout.concurrency` is set.
   */
  lease(layout: SharedLayout): Promise<{ readonly lease: string | undefined; readonly retryMs: number }>;
  /** Adds `deltas` to the levels (a refund, a cancelled booking; negative: an extra charge), capped at capacity. */
  adjust(layout: SharedLayout, deltas: readonly number[]): Promise<void>;
  /** Gives a lease back. */
  release(lease: string): Promise<void>;
  /** Extends live leases by `leaseMs` from now. */
  renew(leases: readonly string[]): Promise<void>;
  /**
   * Lowers dimension `index` to at most `remaining` less what was booked on it
   * after `mark` (a {@link Booking.marks} value); never raises it. Without a
   * mark, to at most `remaining`.
   */
  lower(layout: SharedLayout, index: number, remaining: number, mark: number | undefined): Promise<void>;
  /** No admission with a positive cost on the given dimensions (all when `undefined`) for `ms` from now. */
  pause(layout: SharedLayout, indices: readonly number[] | undefined, ms: number): Promise<void>;
}
