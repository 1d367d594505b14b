import { subscribe, unsubscribe, type AbortSubscriber } from "./abort-fanout.js";
import { amountProblem, costOf } from "./amounts.js";
import { ReservationReleasedError } from "./errors.js";
import type { FailureClass } from "../headers/failures.js";
import type { HeaderInput, RateLimitView } from "../headers/types.js";
import type { Channels } from "../events/hub.js";
import type { DimensionSettlement, SettledEvent } from "../events/types.js";
import { CHARGED, RESERVED, USED, type Meter } from "./meter.js";
import { unreadView } from "./response-reading.js";
import { usageCap } from "./usage-cap.js";
import type { SyncOrigin } from "./origin.js";
import type { SyncOptions } from "../options.js";
import type { Estimate, Usage } from "./limits.js";
import type { QuotaHold } from "./quotas.js";

/**
 * What an admitted request holds: its charge on every dimension and a
 * concurrency slot, until it settles its actual usage and is released.
 * `Limiter.acquire` returns one; `Limiter.run` hands one to its `fn`.
 */
export interface Reservation {
  /** The estimate the request was admitted on. */
  readonly estimate: Estimate;
  /**
   * An abort signal to pass on to the model call, this call's own: it aborts
   * with the caller's `reason` when the caller's signal aborts before
   * `release()` (never, when none was given). Whatever the model call
   * attaches to it is collected with the reservation.
   */
  readonly signal: AbortSignal;
  /** Whether `release()` was called. */
  readonly released: boolean;
  /**
   * Applies the rate-limit headers of this request's response (pass
   * `{ status: 429, body }` for a rejection). Knowing which request carried them
   * lets the limiter discount what it admitted since, and ignore stale ones.
   * Returns the parsed view. Works after `release()` too. Input that throws when
   * read (a getter, Proxy or iterator) changes nothing: a warning through
   * `onWarning`, and an empty view.
   */
  sync(headers: HeaderInput, options?: SyncOptions): RateLimitView;
  /**
   * Reconciles the charge to actual usage: less than the estimate gives the
   * difference back, more charges the extra (a dimension may go into debt).
   * May be called again as usage grows (streams); the last call counts.
   * Throws `ReservationReleasedError` after `release()`, TypeError/RangeError on
   * a malformed `used` (and then changes nothing).
   */
  settle(used: Usage): void;
  /**
   * Gives back the whole charge, the request itself included: for a call the
   * provider did not count (it never left, or failed before the provider
   * metered it). A call that reached the provider should `settle` instead,
   * since providers count failed calls. Throws `ReservationReleasedError` after `release()`.
   */
  refund(): void;
  /** Frees the concurrency slot and makes the charge final. Idempotent. */
  release(): void;
}

/** A response as sync read it: the headers' view, its status, and a 429's class. */
export interface SyncReading {
  readonly view: RateLimitView;
  readonly status: number | undefined;
  readonly failure: FailureClass | undefined;
  /** A 429 whose body is the provider's own "request too large": it confirms the token limits reported. */
  readonly tooLarge: boolean;
}

/** What an admitted call needs from its limiter: its reservation's bookkeeping, and `run`'s retries. */
export interface CallHost {
  /** Adds `amount` back to the meter's dimension (negative: charges more) for a charge made at `chargedAt`. */
  give(meter: Meter, amount: number, chargedAt: number): void;
  /** A response to the call charged `amount` on the meter at `chargedAt` came back: that draw reached the provider. */
  arrived(meter: Meter, amount: number, chargedAt: number): void;
  /** Capacity came back: admission may proceed. */
  refunded(): void;
  /** The reservation ended: free its slot (and its shared-store lease); `refundable` as it was admitted. */
  released(lease: string | undefined, refundable: boolean): void;
  /** Reads a response's headers (and a 429's body); `undefined` for a hostile input, reported and ignored. */
  read(headers: HeaderInput, options: SyncOptions | undefined): SyncReading | undefined;
  /** Applies a read response that the request of `origin` carried. */
  apply(reading: SyncReading, origin: SyncOrigin): void;
  /**
   * Applies what a 429 of `origin`, applied once already, says when read again (its body, read after its
   * headers): only the pause it calls for, so that levels, learning and events count the response once.
   */
  reapply(reading: SyncReading, origin: SyncOrigin): void;
  /** `run`'s `fn` for the request of `origin` resolved: the call succeeded, which ends probed pauses set before it. */
  succeeded(origin: SyncOrigin): void;
  /**
   * Admits a retry at the head of its priority class (`rank`) and tenant's
   * queue, not before monotonic time `notBefore`.
   */
  readmit(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    notBefore: number,
    refundable: boolean,
    rank: number,
    tenant: string | undefined,
  ): Promise<AdmittedCall>;
  now(): number;
  warn(warning: Error): void;
  /** The limiter's `maxUsage`: the most one call's settle charges on a dimension. */
  readonly maxUsage: number;
  /** Reads a failure as the limiter reads headers (its wall clock, its provider's dialect). */
  classify(error: unknown): FailureClass;
  /** The limiter's events (a channel is `undefined` while nobody listens). */
  readonly events: Channels;
  /** A call admitted on `estimate` (an object) settled its input at `input`: the limiter's own estimates learn. */
  learn(estimate: object, input: number): void;
}

/** `outcome` of a refunded call. */
const REFUNDED = "refunded";

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

/** A {@link Reservation} as the limiter keeps it: also the origin of the headers its response carries. */
export class AdmittedCall implements Reservation, SyncOrigin {
  private done = false;
  /** Inside `run`: headers are held back until the call's usage is settled. */
  private deferring = false;
  private deferred: (() => void)[] | undefined;
  /** A refund came while headers were held back: the queue moves once they are applied. */
  private refundHeld = false;
  /** Whether a response to this call was synced (it reached the provider). */
  private answered = false;
  /** A 429 of this call was applied: a later reading of it (its body, read after its headers) only adds its pause. */
  private failed = false;
  /**
   * One array for three per-meter columns (one allocation per admission): at
   * `i`, the meter's `admitted` total right after this admission; at `n + i`,
   * what is charged on it now; at `2n + i`, what the estimate cost at admission
   * (read once: an estimate object mutated later changes nothing).
   */
  private readonly books: number[];
  /** Made on the first read of `signal`: nothing is allocated for calls that never read it. */
  private call: CallController | undefined;
  /** What the last `settle()` reported, or `REFUNDED`; for the `settled` event. */
  private outcome: Usage | typeof REFUNDED | undefined;

  constructor(
    readonly host: CallHost,
    private readonly meters: readonly Meter[],
    /** The estimate the request was admitted on. */
    readonly estimate: Estimate,
    private readonly callerSignal: AbortSignal | undefined,
    /** Admission order, for telling fresher responses from older ones. */
    readonly seq: number,
    /** Monotonic time of admission. */
    readonly admittedAtMs: number,
    /** Whether the limiter meters input and output apart (usage must then be `{ input, output }`). */
    private readonly split: boolean,
    /** Whether its request count may be given back (`acquire`, or `run` with `refundOnError`). */
    private readonly refundable: boolean,
    /** Its priority class and tenant, for the `settled` event. */
    private readonly priority: string,
    private readonly tenant: string | undefined,
    /** A shared store's totals right after this booking (they count every replica). */
    storeMarks?: readonly number[],
    /** The shared store's concurrency lease. */
    private readonly lease?: string,
    /** What the call holds on calendar quotas and held budgets, when the limiter has any. */
    private readonly budget?: QuotaHold,
  ) {
    // Plain loops on the hot path: no closure per admission.
    const n = meters.length;
    const books = new Array<number>(3 * n);
    for (let i = 0; i < n; i++) {
      const meter = meters[i]!;
      const cost = costOf(meter.dimension.unit, estimate);
      meter.held += cost;
      meter.admitted += cost;
      meter.tally.add(admittedAtMs, CHARGED, cost);
      books[i] = storeMarks ? storeMarks[i]! : meter.admitted;
      books[n + i] = cost;
      books[2 * n + i] = cost;
    }
    this.books = books;
  }

  markOf(meter: Meter): number | undefined {
    const i = this.meters.indexOf(meter);
    return i < 0 ? undefined : this.books[i];
  }

  sync(headers: HeaderInput, options?: SyncOptions): RateLimitView {
    const reading = this.host.read(headers, options);
    // A hostile input was reported and changes nothing: not even that the call was answered.
    if (reading === undefined) return unreadView();
    // A 429 must pause admission now; other headers inside `run` wait for the settle (see `deferSyncs`).
    if (this.deferring && reading.status !== 429) (this.deferred ??= []).push(() => this.apply(reading));
    else this.apply(reading);
    return reading.view;
  }

  /** Applies a response's headers; the first response also says this call's draws have reached the provider. */
  private apply(reading: SyncReading): void {
    if (!this.answered) {
      this.answered = true;
      const { meters, books, admittedAtMs } = this;
      const n = meters.length;
      for (let i = 0; i < n; i++) this.host.arrived(meters[i]!, books[n + i]!, admittedAtMs);
    }
    if (reading.status !== 429) return this.host.apply(reading, this);
    if (this.failed) return this.host.reapply(reading, this);
    this.failed = true;
    this.host.apply(reading, this);
  }

  /**
   * `run` settles a call's usage after `fn`, which may already have
   * synced the response's headers. A finished response's headers may count
   * the call's actual usage, so applying them before the settle's refund
   * would count the refund twice; they wait for `flushSyncs`.
   */
  deferSyncs(): void {
    this.deferring = true;
  }

  /** Applies the headers held back by `deferSyncs`, in order. */
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

  get released(): boolean {
    return this.done;
  }

  settle(used: Usage): void {
    if (this.done) throw new ReservationReleasedError();
    // A plain token count needs no general check unless input and output are metered apart.
    const plain = typeof used === "number" && used >= 0 && used !== Infinity && !this.split;
    const problem = plain ? undefined : amountProblem("used", used, this.split);
    if (problem) throw problem;
    this.outcome = used;
    this.recharge(used);
  }

  refund(): void {
    if (this.done) throw new ReservationReleasedError();
    this.outcome = REFUNDED;
    this.recharge(undefined);
  }

  /**
   * The provider answered with an error and no usage (a 429, a 4xx): it bills nothing, so the money (and token)
   * holds on calendar quotas go back; the rate buckets' charges stand, as providers count failed calls.
   */
  unbilled(): void {
    if (this.done || this.outcome !== undefined || !this.budget?.unbilled()) return;
    if (this.deferred) this.refundHeld = true;
    else this.host.refunded();
  }

  release(): void {
    if (this.done) return;
    this.done = true;
    if (this.call && this.callerSignal) unsubscribe(this.callerSignal, this.call);
    this.budget?.release();
    const { meters, books, admittedAtMs } = this;
    const n = meters.length;
    for (let i = 0; i < n; i++) {
      const meter = meters[i]!;
      const used = books[n + i]!;
      meter.held -= used;
      meter.tally.add(admittedAtMs, RESERVED, books[2 * n + i]!);
      meter.tally.add(admittedAtMs, USED, used);
    }
    const { estimate, outcome } = this;
    if (typeof outcome === "object" && typeof estimate === "object") this.host.learn(estimate, outcome.input);
    this.host.events.settled?.emit(this.settlement());
    this.host.released(this.lease, this.refundable);
  }

  /** The `settled` payload: per dimension, what was reserved at admission and what is charged now. */
  private settlement(): SettledEvent {
    const { meters, books, estimate, outcome, priority, tenant } = this;
    const n = meters.length;
    const dimensions: Record<string, DimensionSettlement> = {};
    for (let i = 0; i < n; i++) {
      const meter = meters[i]!;
      const { unit } = meter.dimension;
      dimensions[meter.name] = { unit, reserved: books[2 * n + i]!, used: books[n + i]! };
    }
    const refunded = outcome === REFUNDED;
    const usage = refunded ? undefined : outcome;
    const heldMs = this.host.now() - this.admittedAtMs;
    return { estimate, priority, tenant, usage, refunded, dimensions, heldMs };
  }

  /**
   * What `used` charges on `meter` (at `i`): whole units (a fraction rounded up), at most its
   * {@link usageCap}; a capped usage is reported through `onWarning`.
   */
  private charge(i: number, meter: Meter, used: Usage): number {
    const { unit, capacity } = meter.dimension;
    // A request still counts one (costOf says so); only a refund gives it back.
    const reported = costOf(unit, used);
    const whole = Math.ceil(reported);
    const estimated = this.books[2 * this.meters.length + i]!;
    const cap = usageCap(estimated, capacity, this.host.maxUsage);
    if (whole <= cap) return whole;
    this.host.warn(
      new RangeError(
        `settle(): a usage of ${reported} on "${meter.name}" is beyond what the call can have used ` +
          `(estimate ${estimated}, capacity ${capacity}, maxUsage ${this.host.maxUsage}); charging ${cap}`,
      ),
    );
    return cap;
  }

  /** Moves every charge to what `used` costs (requests stay 1), or to 0 when `used` is undefined (a refund). */
  private recharge(used: Usage | undefined): void {
    const { meters, books, budget } = this;
    const n = meters.length;
    let refunded = budget === undefined ? false : used === undefined ? budget.refund() : budget.settle(used);
    for (let i = 0; i < n; i++) {
      const meter = meters[i]!;
      const next = used === undefined ? 0 : this.charge(i, meter, used);
      const delta = books[n + i]! - next;
      if (delta === 0) continue;
      this.host.give(meter, delta, this.admittedAtMs);
      meter.held -= delta;
      meter.admitted -= delta;
      meter.tally.add(this.admittedAtMs, CHARGED, -delta);
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

/** An error response without usage came back for `reservation`: its quota holds go back (see `unbilled`). */
export function markUnbilled(reservation: Reservation): void {
  if (reservation instanceof AdmittedCall) reservation.unbilled();
}
