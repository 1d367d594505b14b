import type { Estimate } from "./options.js";
import type { QueueEntry } from "./queue.js";
import type { Reservation } from "./reservation.js";

let nextResolve: (reservation: Reservation) => void = () => {};
let nextReject: (reason: unknown) => void = () => {};
// One shared executor: a closure per waiter would cost memory in long queues.
function capture(resolve: (reservation: Reservation) => void, reject: (reason: unknown) => void): void {
  nextResolve = resolve;
  nextReject = reject;
}

/** A request waiting for admission; also its own abort listener. */
export class Waiter implements QueueEntry<Waiter> {
  prev: Waiter | undefined = undefined;
  next: Waiter | undefined = undefined;
  deadline = Infinity;
  heapIndex = -1;
  /** A retry waits at the head until this monotonic time. */
  notBefore = 0;
  readonly promise: Promise<Reservation>;
  readonly resolve: (reservation: Reservation) => void;
  readonly reject: (reason: unknown) => void;

  constructor(
    readonly estimate: Estimate,
    readonly signal: AbortSignal | undefined,
    /** The caller's `maxWaitMs` (`Infinity` for none). */
    readonly maxWaitMs: number,
    private readonly onAbort: (waiter: Waiter) => void,
  ) {
    this.promise = new Promise(capture);
    this.resolve = nextResolve;
    this.reject = nextReject;
  }

  /** Called by the signal on abort (the waiter is an EventListenerObject: no closure per waiter). */
  handleEvent(): void {
    this.onAbort(this);
  }
}
