/**
 * Typed errors, one class per cause, told apart by `code`. `instanceof` works
 * across the ESM and CJS builds (and across duplicated copies of the package)
 * because each class recognises instances by a registry-wide brand holding
 * the code, not by prototype identity or class name.
 */
import type { QuotaPeriod, QuotaUnit } from "./quota-types.js";

/**
 * Every `code` a {@link LimiterError} carries, one per error class.
 * @inline
 */
export type LimiterErrorCode =
  | "REQUEST_TOO_LARGE"
  | "QUEUE_FULL"
  | "WAIT_TIMEOUT"
  | "LIMITER_CLOSED"
  | "RESERVATION_RELEASED"
  | "STORE_UNAVAILABLE"
  | "STORE_REPLY"
  | "QUOTA_EXCEEDED";

/** Each code's class name (set explicitly: bundlers may rename classes). */
const NAMES: Record<LimiterErrorCode, string> = {
  REQUEST_TOO_LARGE: "RequestTooLargeError",
  QUEUE_FULL: "QueueFullError",
  WAIT_TIMEOUT: "WaitTimeoutError",
  LIMITER_CLOSED: "LimiterClosedError",
  RESERVATION_RELEASED: "ReservationReleasedError",
  STORE_UNAVAILABLE: "StoreUnavailableError",
  STORE_REPLY: "StoreReplyError",
  QUOTA_EXCEEDED: "QuotaExceededError",
};

const brand = Symbol.for("llm-limiter.error-code");

type Branded = { [brand]?: unknown };

/** Base class of every error the limiter raises on purpose. */
export class LimiterError extends Error {
  /** The code of the errors this class stands for; `undefined` on the base class, which stands for all. */
  static readonly code: LimiterErrorCode | undefined = undefined;
  /** Stable machine-readable cause, e.g. `"REQUEST_TOO_LARGE"`. */
  readonly code: LimiterErrorCode;

  constructor(code: LimiterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = NAMES[code];
    Object.defineProperty(this, brand, { value: code });
  }

  /**
   * Whether `value` is an error of this class: one the limiter branded with this class's code (any code on
   * the base class), from whichever copy or build of the package created it.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== "object" || value === null) return false;
    const code = (value as Branded)[brand];
    return typeof code === "string" && (this.code === undefined || code === this.code);
  }
}

/** A request whose cost exceeds a dimension's capacity: it could never be admitted. */
export class RequestTooLargeError extends LimiterError {
  static override readonly code = "REQUEST_TOO_LARGE";
  declare readonly code: "REQUEST_TOO_LARGE";

  constructor(
    /** The dimension that can never hold the request. */
    readonly dimension: string,
    /** The request's cost on that dimension. */
    readonly cost: number,
    /** The dimension's capacity (burst size), less the headroom its priority class leaves. */
    readonly capacity: number,
    /** The part of the capacity the request's priority class never takes (its `headroom`); 0 for none. */
    readonly headroom = 0,
  ) {
    super(
      "REQUEST_TOO_LARGE",
      headroom > 0
        ? `Request costs ${cost} on "${dimension}" but its priority may take only ${capacity} of it (the rest is ` +
            `headroom); it can never be admitted`
        : `Request costs ${cost} on "${dimension}" but its capacity is ${capacity}; it can never be admitted`,
    );
  }
}

/** The queue already holds `maxQueue` waiters. */
export class QueueFullError extends LimiterError {
  static override readonly code = "QUEUE_FULL";
  declare readonly code: "QUEUE_FULL";

  constructor(
    /** The configured `maxQueue`: how many requests may wait at once. */
    readonly maxQueue: number,
  ) {
    super("QUEUE_FULL", `The admission queue is full (maxQueue ${maxQueue})`);
  }
}

/**
 * What a {@link WaitTimeoutError} knows beyond the dimension and the wait.
 * @inline
 */
export interface WaitContext {
  /** The concurrency limit, when only a free slot was missing. */
  readonly slots?: number;
  /** The window of the dimension that binds, to tell a spent daily budget. */
  readonly windowMs?: number;
  /** Wall-clock epoch ms at which the dimension has room again, where known. */
  readonly availableAt?: number;
}

const DAY_MS = 86_400_000;
/**
 * A wait longer than this is reported as "not within a month", with no `availableAt`: no budget
 * a provider sets waits that long, and a wait grown from a huge usage may lie past what a `Date` can hold.
 */
export const MAX_REPORTED_WAIT_MS = 31 * DAY_MS;
/** The largest epoch ms a `Date` holds: `toISOString()` throws `RangeError` beyond it. */
const MAX_DATE_MS = 8.64e15;

/** A request could not be admitted within its `maxWaitMs`. */
export class WaitTimeoutError extends LimiterError {
  static override readonly code = "WAIT_TIMEOUT";
  declare readonly code: "WAIT_TIMEOUT";

  /**
   * Wall-clock epoch ms at which the binding dimension has room again, where known: `undefined` when the
   * wait is longer than a month (the message then says "not within a month").
   */
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
    const availableAt = reportedAt(waitMs, context.availableAt);
    super("WAIT_TIMEOUT", waitMessage(dimension, waitMs, maxWaitMs, { ...context, availableAt }));
    this.availableAt = availableAt;
  }
}

/** `availableAt` when the wait is within a month and the instant a `Date` can show; else `undefined`. */
function reportedAt(waitMs: number, availableAt: number | undefined): number | undefined {
  if (availableAt === undefined || !(waitMs <= MAX_REPORTED_WAIT_MS)) return undefined;
  return Math.abs(availableAt) <= MAX_DATE_MS ? availableAt : undefined;
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
  const daily = windowMs !== undefined && windowMs >= DAY_MS;
  // NaN or a wait past a month (a huge usage in debt): said as such, never as a number or a date.
  if (!(waitMs <= MAX_REPORTED_WAIT_MS)) {
    return daily
      ? `The daily budget "${dimension}" is spent: it has no room again within a month, ${over}`
      : `Admission on "${dimension}" has no room within a month, ${over}`;
  }
  const when = availableAt === undefined ? "" : ` (at ${new Date(availableAt).toISOString()})`;
  if (daily)
    return `The daily budget "${dimension}" is spent: it has room again in ${formatSpan(waitMs)}${when}, ${over}`;
  return `Admission on "${dimension}" needs ${Math.ceil(waitMs)} ms${when}, ${over}`;
}

/** A wait in the largest units that say it: `3 h 12 min`, `41 s`. */
function formatSpan(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  if (ms < 60_000) return `${Math.ceil(ms / 1000)} s`;
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * A calendar quota's period cannot hold the call: what it used already (holds of calls in flight aside), plus
 * the call, is over its limit. With `onQuota: "wait"` the call waits for the period to turn instead (under
 * `maxWaitMs`); a call larger than the whole limit is refused either way.
 */
export class QuotaExceededError extends LimiterError {
  static override readonly code = "QUOTA_EXCEEDED";
  declare readonly code: "QUOTA_EXCEEDED";

  constructor(
    /** What the quota counts. */
    readonly unit: QuotaUnit,
    /** Its calendar period. */
    readonly period: QuotaPeriod,
    /** The tenant whose quota it is; `undefined` for the limiter's own. */
    readonly tenant: string | undefined,
    /** The period's limit (dollars for `usd`). */
    readonly limit: number,
    /** What the period has left now, holds of calls in flight counted as spent (dollars for `usd`). */
    readonly remaining: number,
    /** Epoch ms at which the period turns and the quota is whole again. */
    readonly resetsAt: number,
  ) {
    const whose = tenant === undefined ? "" : ` of tenant ${JSON.stringify(tenant.slice(0, 64))}`;
    const at = Math.abs(resetsAt) <= MAX_DATE_MS ? ` at ${new Date(resetsAt).toISOString()}` : "";
    super(
      "QUOTA_EXCEEDED",
      `The ${unit} quota per ${period}${whose} cannot hold the call (limit ${limit}, ${remaining} remaining); ` +
        `it is whole again${at}`,
    );
  }
}

/** The limiter was closed; no request is admitted any more. */
export class LimiterClosedError extends LimiterError {
  static override readonly code = "LIMITER_CLOSED";
  declare readonly code: "LIMITER_CLOSED";

  constructor() {
    super("LIMITER_CLOSED", "The limiter is closed");
  }
}

/** `settle` was called on a reservation that was already released. */
export class ReservationReleasedError extends LimiterError {
  static override readonly code = "RESERVATION_RELEASED";
  declare readonly code: "RESERVATION_RELEASED";

  constructor() {
    super("RESERVATION_RELEASED", "The reservation was already released; settle it before release()");
  }
}
