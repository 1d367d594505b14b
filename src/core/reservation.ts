import { subscribe, unsubscribe, type AbortSubscriber } from "./abort-fanout.js";
import { type Dimension } from "./budget.js";
import { amountProblem, costOf } from "./amounts.js";
import { ReservationReleasedError } from "./errors.js";
import type { HeaderInput, RateLimitView } from "../headers/types.js";
import type { SyncOrigin } from "../sync/levels.js";
import type { SyncOptions } from "../options.js";
import type { Estimate, Usage } from "./limits.js";
import type { ResetReading } from "../sync/reset-evidence.js";

/** Limiter-side tallies of one dimension, kept by name across reconfiguration. */
export interface Meter {
  readonly name: string;
  /** The dimension as it is configured now. */
  dimension: Dimension;
  /** Cost of the queued waiters. */
  queued: number;
  /** Charges held by unreleased reservations: what settles could still refund. */
  held: number;
  /**
   * Net drawn since the meter was created: charged at admission, less refunds,
   * plus extra charges. Marks of it tell what a response could not have counted.
   */
  admitted: number;
  /** `seq` of the freshest response whose levels were applied. */
  syncedSeq: number;
  /** When levels were last synced (monotonic ms). */
  lastSyncAt: number | undefined;
  /** Estimated rate (units/ms) at which other clients draw on the same key. */
  othersRate: number;
  /** Fraction of the rate this client refills at, from `othersRate`. */
  share: number;
  /**
   * Fraction of a shared key's visible headroom this client takes: cut by 429s
   * (the evidence that several clients read the same remaining), recovering over time.
   */
  headroom: number;
  /** The provider's level and the local one as the last sync left them. */
  lastTruth: number;
  lastSet: number;
  /** The headers showed the provider metering this dimension in fixed windows: no share learning. */
  windowed: boolean;
  /** Admissions counted when a 429 last cut `share` and `headroom`: 429s of requests admitted by then add nothing. */
  cutAtSeq: number;
  /** The reset reading later ones are compared with to tell a fixed window from a bucket. */
  resetAnchor: ResetReading | undefined;
  /** The dimension was removed or replaced: reservations charged on it settle nowhere. */
  retired: boolean;
}

/** A new meter for `dimension`. */
export function createMeter(dimension: Dimension): Meter {
  return {
    name: dimension.name,
    dimension,
    queued: 0,
    held: 0,
    admitted: 0,
    syncedSeq: 0,
    lastSyncAt: undefined,
    othersRate: 0,
    share: 1,
    headroom: 1,
    cutAtSeq: 0,
    lastTruth: 0,
    lastSet: 0,
    windowed: false,
    resetAnchor: undefined,
    retired: false,
  };
}

/** What a reservation needs from its limiter. */
export interface ReservationHost {
  /** Adds `amount` back to the meter's dimension (negative: charges more) for a charge made at `chargedAt`. */
  give(meter: Meter, amount: number, chargedAt: number): void;
  /** Capacity came back: admission may proceed. */
  refunded(): void;
  /** The reservation ended: free its slot (and its shared-store lease); `refundable` as it was admitted. */
  released(lease: string | undefined, refundable: boolean): void;
  /** Reads response headers. */
  parse(headers: HeaderInput, options: SyncOptions | undefined): RateLimitView;
  /** Applies read headers that the request of `origin` carried. */
  apply(view: RateLimitView, headers: HeaderInput, options: SyncOptions | undefined, origin: SyncOrigin): void;
}

/**
 * The signal of one call, aborted with the caller's reason. SDKs attach an abort
 * listener to the signal they are given and may never remove it (openai-node
 * does not): on a signal of its own, that listener goes with the call.
 */
class CallController extends AbortController implements AbortSubscriber {
  abortPrev: AbortSubscriber | undefined = undefined;
  abortNext: AbortSubscriber | undefined = undefined;

  constructor(private readonly caller: AbortSignal | undefined) {
    super();
  }

  /** The caller's signal aborted (this object hears it through the signal's one listener: no closure). */
  handleEvent(): void {
    this.abort(this.caller?.reason);
  }
}

/**
 * What an admitted request holds: its charge on every dimension and a
 * concurrency slot, until it settles its actual usage and is released.
 */
export class Reservation implements SyncOrigin {
  private done = false;
  /** Inside `run`: headers are held back until the call's usage is settled. */
  private deferring = false;
  private deferred: (() => void)[] | undefined;
  /** A refund came while headers were held back: the queue moves once they are applied. */
  private refundHeld = false;
  /**
   * One array for two per-meter columns (one allocation per admission): at
   * `i`, the meter's `admitted` total right after this admission; at `n + i`,
   * what is charged on it now.
   */
  private readonly books: number[];
  /** Made on the first read of `signal`: nothing is allocated for calls that never read it. */
  private call: CallController | undefined;

  /** @internal Created by the limiter on admission. */
  constructor(
    private readonly host: ReservationHost,
    private readonly meters: readonly Meter[],
    /** The estimate the request was admitted on. */
    readonly estimate: Estimate,
    private readonly callerSignal: AbortSignal | undefined,
    /** @internal Admission order, for telling fresher responses from older ones. */
    readonly seq: number,
    /** @internal Monotonic time of admission. */
    readonly admittedAtMs: number,
    /** @internal Whether the limiter meters input and output apart (usage must then be `{ input, output }`). */
    private readonly split: boolean,
    /** @internal Whether its request count may be given back (`acquire`, or `run` with `refundOnError`). */
    private readonly refundable: boolean,
    /** @internal A shared store's totals right after this booking (they count every replica). */
    storeMarks?: readonly number[],
    /** @internal The shared store's concurrency lease. */
    private readonly lease?: string,
  ) {
    // Plain loops on the hot path: no closure per admission.
    const n = meters.length;
    const books = new Array<number>(2 * n);
    for (let i = 0; i < n; i++) {
      const meter = meters[i]!;
      const cost = costOf(meter.dimension.unit, estimate);
      meter.held += cost;
      meter.admitted += cost;
      books[i] = storeMarks ? storeMarks[i]! : meter.admitted;
      books[n + i] = cost;
    }
    this.books = books;
  }

  /** @internal */
  markOf(meter: Meter): number | undefined {
    const i = this.meters.indexOf(meter);
    return i < 0 ? undefined : this.books[i];
  }

  /**
   * Applies the rate-limit headers of this request's response (pass
   * `{ status: 429, body }` for a rejection). Knowing which request carried them
   * lets the limiter discount what it admitted since, and ignore stale ones.
   * Returns the parsed view. Works after `release()` too.
   */
  sync(headers: HeaderInput, options?: SyncOptions): RateLimitView {
    const view = this.host.parse(headers, options);
    // A 429 must pause admission now; other headers inside `run` wait for the settle (see `deferSyncs`).
    if (this.deferring && options?.status !== 429)
      (this.deferred ??= []).push(() => this.host.apply(view, headers, options, this));
    else this.host.apply(view, headers, options, this);
    return view;
  }

  /**
   * @internal `run` settles a call's usage after `fn`, which may already have
   * synced the response's headers. A finished response's headers may count
   * the call's actual usage, so applying them before the settle's refund
   * would count the refund twice; they wait for `flushSyncs`.
   */
  deferSyncs(): void {
    this.deferring = true;
  }

  /** @internal Applies the headers held back by `deferSyncs`, in order. */
  flushSyncs(): void {
    const deferred = this.deferred;
    this.deferring = false;
    this.deferred = undefined;
    if (deferred) for (const apply of deferred) apply();
    if (this.refundHeld) {
      this.refundHeld = false;
      this.host.refunded();
    }
  }

  /**
   * An abort signal to pass on to the model call, this call's own: it aborts
   * with the caller's `reason` when the caller's signal aborts before
   * `release()` (never, when none was given). Whatever the model call
   * attaches to it is collected with the reservation.
   */
  get signal(): AbortSignal {
    if (!this.call) {
      const caller = this.callerSignal;
      this.call = new CallController(caller);
      if (caller?.aborted) this.call.abort(caller.reason);
      // Removed on release: after it, the caller's aborts no longer concern this call.
      else if (caller && !this.done) subscribe(caller, this.call);
    }
    return this.call.signal;
  }

  /** Whether `release()` was called. */
  get released(): boolean {
    return this.done;
  }

  /**
   * Reconciles the charge to actual usage: less than the estimate gives the
   * difference back, more charges the extra (a dimension may go into debt).
   * May be called again as usage grows (streams); the last call counts.
   * Throws `ReservationReleasedError` after `release()`, TypeError/RangeError on
   * a malformed `used` (and then changes nothing).
   */
  settle(used: Usage): void {
    if (this.done) throw new ReservationReleasedError();
    // A plain token count needs no general check unless input and output are metered apart.
    const plain = typeof used === "number" && used >= 0 && used !== Infinity && !this.split;
    const problem = plain ? undefined : amountProblem("used", used, this.split);
    if (problem) throw problem;
    this.recharge(used);
  }

  /** Gives back everything, requests included (for calls the provider did not count). */
  refund(): void {
    if (this.done) throw new ReservationReleasedError();
    this.recharge(undefined);
  }

  /** Frees the concurrency slot and makes the charge final. Idempotent. */
  release(): void {
    if (this.done) return;
    this.done = true;
    if (this.call && this.callerSignal) unsubscribe(this.callerSignal, this.call);
    const n = this.meters.length;
    for (let i = 0; i < n; i++) this.meters[i]!.held -= this.books[n + i]!;
    this.host.released(this.lease, this.refundable);
  }

  /** Moves every charge to what `used` costs (requests stay 1), or to 0 when `used` is undefined (a refund). */
  private recharge(used: Usage | undefined): void {
    const { meters, books } = this;
    const n = meters.length;
    let refunded = false;
    for (let i = 0; i < n; i++) {
      const meter = meters[i]!;
      const unit = meter.dimension.unit;
      // A request still counts one (costOf says so); only a refund gives it back.
      const next = used === undefined ? 0 : costOf(unit, used);
      const delta = books[n + i]! - next;
      if (delta === 0) continue;
      this.host.give(meter, delta, this.admittedAtMs);
      meter.held -= delta;
      meter.admitted -= delta;
      books[n + i] = next;
      if (delta > 0) refunded = true;
    }
    if (!refunded) return;
    // Admitting on the refund before the held-back headers apply would set the level to a
    // remaining that cannot count that admission (the provider has not seen it yet).
    if (this.deferred) this.refundHeld = true;
    else this.host.refunded();
  }
}
