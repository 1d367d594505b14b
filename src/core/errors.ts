/**
 * Typed errors, one class per cause. `instanceof` works across the ESM and CJS
 * builds (and across duplicated copies of the package) because each class
 * recognises instances by a registry-wide symbol, not by prototype identity.
 */

const kinds = Symbol.for("llm-limiter.error-kinds");

type Branded = { [kinds]?: readonly string[] };

/** Base class of every error the limiter raises on purpose. */
export class LimiterError extends Error {
  /** Stable machine-readable cause, e.g. `"REQUEST_TOO_LARGE"`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    const chain: string[] = [];
    for (let c: unknown = new.target; c && c !== Error; c = Object.getPrototypeOf(c)) {
      chain.push((c as { name: string }).name);
    }
    Object.defineProperty(this, kinds, { value: chain });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== "object" || value === null) return false;
    const chain = (value as Branded)[kinds];
    return Array.isArray(chain) ? chain.includes(this.name) : false;
  }
}

/** A request whose cost exceeds a dimension's capacity: it could never be admitted. */
export class RequestTooLargeError extends LimiterError {
  constructor(
    /** The dimension that can never hold the request. */
    readonly dimension: string,
    /** The request's cost on that dimension. */
    readonly cost: number,
    /** The dimension's capacity (burst size). */
    readonly capacity: number,
  ) {
    super(
      "REQUEST_TOO_LARGE",
      `Request costs ${cost} on "${dimension}" but its capacity is ${capacity}; it can never be admitted`,
    );
  }
}

/** The queue already holds `maxQueue` waiters. */
export class QueueFullError extends LimiterError {
  constructor(readonly maxQueue: number) {
    super("QUEUE_FULL", `The admission queue is full (maxQueue ${maxQueue})`);
  }
}

/** What a {@link WaitTimeoutError} knows beyond the dimension and the wait. */
export interface WaitContext {
  /** The concurrency limit, when only a free slot was missing. */
  readonly slots?: number;
  /** The window of the dimension that binds, to tell a spent daily budget. */
  readonly windowMs?: number;
  /** Wall-clock epoch ms at which the dimension has room again, where known. */
  readonly availableAt?: number;
}

const DAY_MS = 86_400_000;

/** A request could not be admitted within its `maxWaitMs`. */
export class WaitTimeoutError extends LimiterError {
  /** Wall-clock epoch ms at which the binding dimension has room again, where known. */
  readonly availableAt: number | undefined;

  constructor(
    /**
     * What kept the request waiting: a dimension's name, `"concurrency"` (every
     * slot held), `"store"` (the shared store unavailable) or `"queue"` (requests ahead).
     */
    readonly dimension: string,
    /** How long the request needed in all (at least), or waited when that is unknown. */
    readonly waitMs: number,
    /** The caller's limit. */
    readonly maxWaitMs: number,
    context: WaitContext = {},
  ) {
    super("WAIT_TIMEOUT", waitMessage(dimension, waitMs, maxWaitMs, context));
    this.availableAt = context.availableAt;
  }
}

function waitMessage(
  dimension: string,
  waitMs: number,
  maxWaitMs: number,
  { slots, windowMs, availableAt }: WaitContext,
): string {
  const over = `over maxWaitMs ${maxWaitMs}`;
  if (dimension === "concurrency")
    return `All ${slots === undefined ? "" : `${slots} `}concurrency slots held, none freed within maxWaitMs ${maxWaitMs}`;
  if (dimension === "store") return `Shared store unavailable, no admission within maxWaitMs ${maxWaitMs}`;
  if (dimension === "queue") return `Queued behind earlier requests for ${over}`;
  const when = availableAt === undefined ? "" : ` (at ${new Date(availableAt).toISOString()})`;
  if (windowMs !== undefined && windowMs >= DAY_MS) {
    return `The daily budget "${dimension}" is spent: it has room again in ${formatSpan(waitMs)}${when}, ${over}`;
  }
  return `Admission on "${dimension}" needs ${Math.ceil(waitMs)} ms${when}, ${over}`;
}

/** A wait in the largest units that say it: `3 h 12 min`, `41 s`. */
function formatSpan(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  if (ms < 60_000) return `${Math.ceil(ms / 1000)} s`;
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The limiter was closed; no request is admitted any more. */
export class LimiterClosedError extends LimiterError {
  constructor() {
    super("LIMITER_CLOSED", "The limiter is closed");
  }
}

/** `settle` was called on a reservation that was already released. */
export class ReservationReleasedError extends LimiterError {
  constructor() {
    super("RESERVATION_RELEASED", "The reservation was already released; settle it before release()");
  }
}
