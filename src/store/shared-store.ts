/**
 * The contract between the limiter and a store shared by many processes (the
 * Redis store). Every method is one round trip; the store's own clock (Redis
 * `TIME`) decides refills, never a caller's.
 *
 * Admission is booked, GCRA-style: when the buckets lack room, `book` takes
 * the cost anyway (levels go below zero: they hold future admissions) and
 * says when the booking is due. Processes are then served in booking order
 * without polling; an aborted booking is given back with `adjust`. One `book`
 * admits a run of queued requests that fit now: one round trip for many.
 */

/**
 * The most one booking call takes: this many requests, and no more of any
 * bucket than this share of its capacity (the first request always goes). It
 * is also the unit of fairness between processes: a request weighs the larger
 * of `1 / requests` and its largest cost over a share, so a full batch weighs 1.
 */
export const BOOKING_BATCH = { requests: 128, share: 1 / 8 } as const;

/**
 * While a booking for later waits, how often (ms) a store with
 * {@link SharedStore.dueIn} is asked whether it has come due sooner: refunds,
 * other waiters leaving and refill held back by nothing meanwhile free room
 * that the oldest bookings should have first. Until it asks, a process with
 * room booked is not counted as due to book, and the others may take batches
 * past it: at 200 ms, three processes sharing a workload with refunds drifted
 * two batches apart (`npm run bench:redis-goodput`); at 50, a batch and a few calls at most.
 */
export const DUE_POLL_MS = 50;

/** One dimension as the shared store meters it. */
export interface SharedDimension {
  /** The dimension's name (`rpm`, `tpm`, a custom one): the store keeps its state under this name. */
  readonly name: string;
  /** Units refilled per `windowMs`. */
  readonly limit: number;
  /** The refill window, in ms. */
  readonly windowMs: number;
  /** Largest level (burst). */
  readonly capacity: number;
}

/** What the caller's limiter is configured with, sent along with every call. */
export interface SharedLayout {
  /** The metered dimensions, in the order every per-dimension array (costs, deltas, marks, levels) follows. */
  readonly dimensions: readonly SharedDimension[];
  /** Leases allowed at once across every process; `undefined`: no concurrency limit. */
  readonly concurrency: number | undefined;
  /** Fraction of capacity a dimension starts with when its state is missing (new, expired or lost). */
  readonly initialFraction: number;
  /**
   * The longest time, in ms, from admission until a call reaches the provider (the limiter's
   * `arrivalDelayMs`): until a draw arrives the provider's bucket may sit full and lose refill, so a
   * draw from a bucket that refill could fill before then holds back its refill as long. `0` or left
   * out: calls arrive at once.
   */
  readonly arrivalDelayMs?: number;
}

/**
 * The outcome of {@link SharedStore.book}: the requests it took, a prefix of
 * those sent. Arrays of numbers are aligned with `layout.dimensions`.
 */
export interface Booking {
  /** How many requests, from the first, were admitted now (with a lease each when concurrency is limited). */
  readonly admitted: number;
  /**
   * Whether the request after those (at index `admitted`) was booked for later:
   * its costs taken, due in `waitMs`, no lease yet (take one with `lease` when
   * due). The requests after it were not looked at.
   */
  readonly booked: boolean;
  /**
   * `booked`: ms until the booked request is due. Otherwise, when a request was
   * left (a concurrency slot was missing; nothing taken for it or after it):
   * retry after this many ms at the latest. `0` when every request was admitted.
   */
  readonly waitMs: number;
  /**
   * The binding dimension when `waitMs > 0`: `"concurrency"` when a slot was missing, `"fairness"` when
   * the rest waits for processes behind this one (see {@link SharedStore.book}).
   */
  readonly dimension: string | undefined;
  /** The leases of the requests admitted now, in order; empty when concurrency is not limited. */
  readonly leases: readonly string[];
  /**
   * Per request taken (those admitted, then the booked one), per dimension, the
   * total ever booked on it (all processes; `adjust` does not count) right after it.
   */
  readonly marks: readonly (readonly number[])[];
  /** Per dimension, the level right after this call (negative while bookings are pending). */
  readonly levels: readonly number[];
  /**
   * Per dimension, what the booking for later took besides its costs: the refill that would overflow the
   * provider's bucket before the booked request, drawn when due, arrives there. Given back with the costs
   * when the booking is. Left out: none.
   */
  readonly lost?: readonly number[];
}

/**
 * What a limiter does while its shared store is unreachable:
 * - `"fail-closed"`: admit nothing; requests wait (or time out on `maxWaitMs`) until it is back;
 * - `"fail-open"`: admit everything, unmetered;
 * - `{ local: f }`: admit through a local limiter holding the fraction `f` of every budget
 *   (`1 / replicas` shares the quota fairly while the replicas cannot coordinate).
 */
export type StoreFailurePolicy =
  | "fail-closed"
  | "fail-open"
  | {
      /** The fraction of every budget the local limiter holds, in (0, 1]. */
      readonly local: number;
    };

/** Checks a {@link StoreFailurePolicy}; returns its local fraction, if it has one. Throws TypeError/RangeError. */
export function checkFailurePolicy(policy: unknown): number | undefined {
  const local = typeof policy === "object" && policy !== null ? (policy as { local?: unknown }).local : undefined;
  if (local !== undefined && !(typeof local === "number" && local > 0 && local <= 1))
    throw new RangeError(`onError.local must be in (0, 1], got ${String(local)}`);
  if (local === undefined && policy !== "fail-closed" && policy !== "fail-open") {
    throw new TypeError(`onError must be "fail-closed", "fail-open" or { local }, got ${JSON.stringify(policy)}`);
  }
  return local;
}

/** What a response's headers say of one dimension, for {@link SharedStore.resync}. */
export interface SharedReading {
  /** The remaining the response reported. */
  readonly remaining: number;
  /** That remaining brought forward to now: refilled at the full rate since the request's admission. */
  readonly brought: number;
  /** The request's mark (a {@link Booking.marks} value); `undefined`: none, the headers are taken as current. */
  readonly mark: number | undefined;
}

/** Bucket state shared by many processes. */
export interface SharedStore {
  /** How long a concurrency lease lives unless renewed, in ms. */
  readonly leaseMs: number;
  /** What the limiter does while the store is unreachable. Default `"fail-closed"`. */
  readonly onError?: StoreFailurePolicy;
  /**
   * Whether a rejection is one that retrying cannot cure (the store answered
   * that the call is wrong, not that it is unavailable): the waiters it
   * concerns reject with it at once, whatever `onError` says. Without this
   * method, every rejection counts as the store being unreachable.
   */
  isFinal?(error: unknown): boolean;
  /**
   * Whether a final rejection (see {@link isFinal}) says that the store found
   * its state corrupt and repaired it: the limiter also warns of it (through
   * `onWarning`), whichever call met it.
   */
  repaired?(error: unknown): boolean;
  /**
   * Refills every dimension to now, then takes each request's costs (one per
   * dimension) from all of them at once, in order: every request that fits now
   * is admitted, and the first that does not is booked for later, which ends
   * the call (see {@link Booking}). At most one booking for later per call: one
   * due in the future is the only one a 429 pause or a lowered level cannot stop
   * (the limiter admits it at that time, or sooner: see {@link SharedStore.dueIn}).
   *
   * `more` says that the caller has requests queued behind these. Processes that
   * want more are served in step: the store counts what each takes (in
   * batches: a request weighs the larger of 1/128 and its largest cost over an
   * eighth of that bucket) while it wants more, and a call stops short,
   * taking nothing more (`waitMs` then says when to try again, dimension
   * `"fairness"`), where going on would put its process more than one batch
   * ahead of another that wants more and is not waiting for a booking to come
   * due. A store may ignore `more`.
   */
  book(layout: SharedLayout, requests: readonly (readonly number[])[], more?: boolean): Promise<Booking>;
  /**
   * Ms until a booking for later is due now (`0`: due), from its marks (per
   * dimension, `undefined` where it costs nothing): the bookings before it and
   * it are covered once a dimension's level, plus what was booked on it after
   * the mark, reaches zero. Refunds and bookings given back bring it sooner
   * than `book` said; a lowered level or a pause, later. The limiter asks at
   * most every 50 ms while one waits and takes an answer only
   * when it is sooner; without this method, it waits for the time `book` said.
   */
  dueIn?(layout: SharedLayout, marks: readonly (number | undefined)[]): Promise<number>;
  /**
   * Takes a concurrency lease for a booking that came due; `lease` undefined:
   * none free, retry after `retryMs`. Called only when `layout.concurrency` is set.
   */
  lease(layout: SharedLayout): Promise<{
    /** The lease taken, to give back with `release`; `undefined` when every slot is held. */
    readonly lease: string | undefined;
    /** With no lease: ms until the earliest lease expires, at the latest, to retry then. `0` with a lease. */
    readonly retryMs: number;
  }>;
  /**
   * Adds `deltas` to the levels (a refund, a cancelled booking; negative: an extra charge), capped at capacity
   * less the draws booked for later that may not have reached the provider (its bucket, which has not seen them,
   * stops at capacity). `unbooked`, per dimension: what of `deltas` gives such draws back (a booking for later
   * cancelled), which the provider will then never see. Left out: none.
   */
  adjust(layout: SharedLayout, deltas: readonly number[], unbooked?: readonly number[]): Promise<void>;
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
  /**
   * Header sync: sets dimension `index` to what a response reports, as of now:
   * at most `reading.remaining`, and at most `reading.brought` less what every
   * process booked after `reading.mark`, floored at zero. Unlike `lower`, it
   * may raise the level, but never above the store's own count (the level as
   * bookings, refills and adjusts alone leave it), and never out of debt:
   * a reading that counted draws twice (headers stamped at completion count
   * the calls that arrived meanwhile, which the mark counts again) is undone
   * by the next one. `lower` leaves the own count as it is.
   */
  resync(layout: SharedLayout, index: number, reading: SharedReading): Promise<void>;
  /** No admission with a positive cost on the given dimensions (all when `undefined`) for `ms` from now. */
  pause(layout: SharedLayout, indices: readonly number[] | undefined, ms: number): Promise<void>;
  /**
   * Ends the pauses of the given dimensions (all when `undefined`), for every process (`limiter.resume()`, and
   * a later response that showed room). Without this method, a pause in the store runs its time out
   * (at most a month, or a minute at a time for a probed one).
   */
  unpause?(layout: SharedLayout, indices: readonly number[] | undefined): Promise<void>;
}
