import type { AbortSubscriber } from "../core/abort-fanout.js";
import type { Estimate } from "../core/limits.js";
import type { DeadlineEntry } from "./queue.js";
import type { Lane, Place, Scheduled } from "./scheduler.js";
import type { AdmittedCall } from "../core/reservation.js";

let nextResolve: (reservation: AdmittedCall) => void = () => {};
let nextReject: (reason: unknown) => void = () => {};
// One shared executor: a closure per waiter would cost memory in long queues.
function capture(resolve: (reservation: AdmittedCall) => void, reject: (reason: unknown) => void): void {
  nextResolve = resolve;
  nextReject = reject;
}

/**
 * What only some waiters have: an abort signal, a deadline, a retry's hold.
 * Kept apart from {@link Waiter} so that a plain queued request stays small.
 * It is also the waiter's abort listener (an EventListenerObject: no closure).
 */
export class WaiterTerms implements DeadlineEntry, AbortSubscriber {
  /** Monotonic ms by which the waiter must be admitted; `Infinity` for none. */
  deadline = Infinity;
  heapIndex = -1;
  /** A retry waits at the head until this monotonic time. */
  notBefore = 0;
  /** The call's own `onQuota`, when it set one. */
  onQuota: "reject" | "wait" | undefined = undefined;
  abortPrev: AbortSubscriber | undefined = undefined;
  abortNext: AbortSubscriber | undefined = undefined;

  constructor(
    readonly waiter: Waiter,
    readonly signal: AbortSignal | undefined,
    /** The caller's `maxWaitMs` (`Infinity` for none). */
    readonly maxWaitMs: number,
    private readonly onAbort: (waiter: Waiter) => void,
  ) {}

  handleEvent(): void {
    this.onAbort(this.waiter);
  }
}

/** A request waiting for admission. */
export class Waiter implements Scheduled<Waiter> {
  prev: Waiter | undefined = undefined;
  next: Waiter | undefined = undefined;
  terms: WaiterTerms | undefined = undefined;

  private constructor(
    readonly estimate: Estimate,
    /** Its lane (priority class and tenant), flagged when its request count may be given back once admitted. */
    readonly place: Place<Waiter>,
    /** Monotonic time it was queued, in whole ms: a small integer is stored unboxed, a fraction costs a heap number. */
    readonly queuedAt: number,
    readonly resolve: (reservation: AdmittedCall) => void,
    readonly reject: (reason: unknown) => void,
  ) {}

  /** A waiter and the promise it settles. */
  static create(
    estimate: Estimate,
    lane: Lane<Waiter>,
    refundable: boolean,
    queuedAt: number,
  ): { waiter: Waiter; promise: Promise<AdmittedCall> } {
    const promise = new Promise(capture);
    const place = refundable ? lane.flagged : lane.unflagged;
    return { waiter: new Waiter(estimate, place, queuedAt, nextResolve, nextReject), promise };
  }

  /** Its priority class and tenant. */
  get lane(): Lane<Waiter> {
    return this.place.lane;
  }

  /** Whether its request count may be given back once admitted (see `Limiter.predictWait`). */
  get refundable(): boolean {
    return this.place.flag;
  }

  get signal(): AbortSignal | undefined {
    return this.terms?.signal;
  }

  get deadline(): number {
    return this.terms?.deadline ?? Infinity;
  }

  get maxWaitMs(): number {
    return this.terms?.maxWaitMs ?? Infinity;
  }

  /** Fraction of every bucket's capacity its class leaves untouched. */
  get reserve(): number {
    return this.lane.band.reserve;
  }

  get notBefore(): number {
    return this.terms?.notBefore ?? 0;
  }

  /** The call's own `onQuota`, if it set one. */
  get onQuota(): "reject" | "wait" | undefined {
    return this.terms?.onQuota;
  }
}
