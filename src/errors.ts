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

/** A request could not be admitted within its `maxWaitMs`. */
export class WaitTimeoutError extends LimiterError {
  constructor(
    /** The dimension that kept the request waiting (`"concurrency"` or `"queue"` when no bucket did). */
    readonly dimension: string,
    /** How long the request waited, or would have had to wait when rejected at once. */
    readonly waitMs: number,
    /** The caller's limit. */
    readonly maxWaitMs: number,
  ) {
    super(
      "WAIT_TIMEOUT",
      `Admission on "${dimension}" needs ${Math.ceil(waitMs)} ms, over maxWaitMs ${maxWaitMs}`,
    );
  }
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
