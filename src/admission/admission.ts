import type { DimensionSnapshot } from "../buckets/types.js";
import type { Clock } from "../core/clock.js";
import type { Ledger } from "../core/ledger.js";
import type { Estimate } from "../core/limits.js";
import type { LoopLag } from "../core/loop-lag.js";
import type { Channels } from "../events/hub.js";
import type { PauseState } from "../events/types.js";
import type { Meters } from "../core/meters.js";
import type { AdmittedCall, CallHost } from "../core/reservation.js";
import type { Quotas } from "../core/quotas.js";

/** What a call that its quota's period cannot hold does: refused at once, or waits for the period to turn. */
export type OnQuota = "reject" | "wait";

/** What a limiter's admission is built from. */
export interface AdmissionParts {
  readonly clock: Clock;
  /** How late the limiter's timers fire: every alarm reports to it, the buckets widen the arrival allowance by it. */
  readonly lag: LoopLag;
  /** The budget in force and its meters (the limiter applies changes, then calls `configure`). */
  readonly meters: Meters;
  /** Where admitted requests get their reservations. */
  readonly ledger: Ledger;
  /** Most requests that may wait at once. */
  readonly maxQueue: number;
  /**
   * One entry per priority class, the most urgent first: the fraction of every
   * bucket's capacity the class leaves untouched (its headroom; 0 for none).
   */
  readonly reserves: readonly number[];
  /** The classes' names, in the same order: what the events call them. */
  readonly priorities: readonly string[];
  /** The limiter's events. */
  readonly events: Channels;
  /** Calendar quotas and held budgets, when any is configured (in this process only). */
  readonly quotas?: Quotas;
  /** What a call that its quota's period cannot hold does unless it says otherwise. */
  readonly onQuota?: OnQuota;
}

/** A request waiting, as `Limiter.snapshot` sees it. */
export interface Waiting {
  readonly estimate: Estimate;
  /** Monotonic time it was queued. */
  readonly queuedAt: number;
}

/** Levels and slots as `Limiter.snapshot` reports them. */
export interface AdmissionLevels {
  readonly dimensions: Record<string, DimensionSnapshot>;
  /** Concurrency slots in use. */
  readonly slotsInUse: number;
  /** Ms a call admitted now may take to reach the provider: `arrivalDelayMs`, widened while the event loop lags. */
  readonly arrivalAllowanceMs: number;
}

/**
 * How requests are admitted: one interface whether the buckets live in this
 * process (`LocalAdmission`) or in a store every replica shares (`SharedAdmission`).
 * Requests wait by priority class (by `rank`, 0 the most urgent), shared
 * between tenants within a class and FIFO within a tenant; each is admitted
 * once all of its dimensions have room.
 */
export interface Admission {
  /** Requests waiting for admission. */
  readonly queued: number;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** Takes the budget now in `meters` (its dimensions and concurrency) into the buckets. */
  configure(): void;
  /**
   * Admits at once when nothing of class `rank` or a more urgent one waits,
   * nothing holds admission back and `estimate` fits; else `undefined`.
   */
  admitNow(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    refundable: boolean,
    rank: number,
    tenant: string | undefined,
  ): AdmittedCall | undefined;
  /**
   * `admitNow` for `tryAcquire`, which never waits: throws TypeError where
   * admission is asynchronous (a shared store answers over the network).
   */
  tryNow(estimate: Estimate, rank: number): AdmittedCall | undefined;
  /**
   * Queues a request at the tail of its class and tenant; rejects at once if
   * the queue is full or the wait is known to be too long.
   */
  enqueue(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    maxWaitMs: number,
    refundable: boolean,
    rank: number,
    tenant: string | undefined,
    onQuota?: OnQuota,
  ): Promise<AdmittedCall>;
  /** A retry: back at the head of its class and tenant, admitted no earlier than monotonic `notBefore`. */
  readmit: CallHost["readmit"];
  /**
   * Rejects every waiter `problemWith` finds a problem with (the budget
   * changed), with that problem; `reserve` is the headroom of its class.
   */
  rejectWhere(problemWith: (estimate: Estimate, reserve: number) => Error | undefined): void;
  /** A charge of `amount` on dimension `name` given back (negative: charged more), made at `chargedAt`. */
  give(name: string, amount: number, chargedAt: number): void;
  /** A draw of `amount` on dimension `name`, made at `chargedAt`, has reached the provider (its response came back). */
  arrived(name: string, amount: number, chargedAt: number): void;
  /**
   * A 429 asked for a pause of `ms` on `names` (every dimension: `undefined`), with `seq` admissions
   * counted so far; `perDay`: it named a per-day quota, which only its time or `liftPauses` ends.
   */
  hold(names: readonly string[] | undefined, ms: number, perDay: boolean, seq: number): void;
  /**
   * A response to the call admitted `seq`th (`current`: headers taken as news of now) succeeded, reporting
   * the remaining of `reported`: the probed pauses it shows room on end.
   */
  succeeded(seq: number, current: boolean, reported: Readonly<Record<string, { readonly remaining?: number }>>): void;
  /** Ends every pause, in every process of a shared store too. */
  liftPauses(reason: "resume" | "setLimits"): void;
  /** The pauses that hold now; `undefined` when none does. */
  pauses(): PauseState[] | undefined;
  /** News of the key: a response's headers, or a call done. */
  heard(): void;
  /** Capacity came back or the levels changed: admit what fits now. */
  admitWhatFits(): void;
  /** A reservation was released: its slot (or its shared-store lease) is free. */
  released(lease: string | undefined): void;
  /** The current levels of every dimension, and the slots in use. */
  levels(): AdmissionLevels;
  /** The requests waiting, in no promised order. */
  waiting(): Iterable<Waiting>;
  /** Resolves when nothing is queued or in flight. */
  onIdle(): Promise<void>;
  /** Resolves once every write to a shared store made so far is answered (sent now if batched); at once in memory. */
  written(): Promise<void>;
  /** Rejects every waiter with `LimiterClosedError`, clears timers; resolves once writes made so far are done. */
  close(): Promise<void>;
}
