import { subscribe, unsubscribe } from "./core/abort-fanout.js";
import type { Clock } from "./core/clock.js";
import { checkMaxWaitMs, resolveOptions } from "./config.js";
import { buildBudget, mergeLimits, type Budget, type Dimension } from "./core/budget.js";
import { amountProblem, costOf, needsSplitEstimate } from "./core/amounts.js";
import { LimiterClosedError, QueueFullError, RequestTooLargeError, WaitTimeoutError } from "./core/errors.js";
import type { AcquireOptions, LimiterOptions, RunOptions, RunResult, SyncOptions } from "./options.js";
import type { Estimate, LimitChanges, Limits } from "./core/limits.js";
import { DeadlineHeap, Fifo } from "./admission/queue.js";
import { parseRateLimitHeaders } from "./headers/parse.js";
import type { HeaderInput, ParseOptions, ProviderName, RateLimitView } from "./headers/types.js";
import { LearnedLimits } from "./sync/learned-limits.js";
import { alignToRetryHint, syncLevels, syncSharedLevels, yieldShare, type SyncOrigin } from "./sync/levels.js";
import { createMeter, Reservation, type Meter, type ReservationHost } from "./core/reservation.js";
import { MemoryStore } from "./buckets/local-buckets.js";
import type { DimensionSnapshot, Store } from "./buckets/types.js";
import { classifyFailure, type FailureClass } from "./headers/failures.js";
import { retryPolicy } from "./core/retry.js";
import { runAdmitted, type RunHost, type RunPlan } from "./core/run.js";
import { SharedAdmission } from "./admission/shared.js";
import { StartupProbe } from "./admission/startup-probe.js";
import { Alarm } from "./admission/alarm.js";
import { Waiter, WaiterTerms } from "./admission/waiter.js";

/** `run` without options: shared, so the common call allocates no plan. */
const PLAIN_RUN: RunPlan = { refundOnError: false, retry: undefined, signal: undefined };

/** What {@link Limiter.snapshot} returns. */
export type LimiterSnapshot = Record<string, DimensionSnapshot> & {
  /** Present when a concurrency limit is configured. */
  concurrency?: { readonly limit: number; readonly available: number };
  /** Requests waiting for admission. */
  queued: number;
  /** Admitted requests not yet released. */
  inFlight: number;
};

/**
 * Keeps calls inside every configured budget at once: each request waits in a
 * FIFO queue until all of its dimensions have room, takes from all of them
 * atomically, and reconciles its reservation to actual usage afterwards.
 */
export class Limiter {
  private readonly clock: Clock;
  private readonly store: Store;
  /** Set when bucket state lives in a shared store; then it is also `store`. */
  private readonly shared: SharedAdmission | undefined;
  private readonly maxQueue: number;
  private readonly maxWaitMs: number;
  private readonly warn: (warning: Error) => void;
  private readonly provider: ProviderName | undefined;
  /** The budgets as configured; the effective ones also fold in `learned`. */
  private limits: Limits;
  private readonly learned = new LearnedLimits();
  /** Admissions so far: orders responses against admissions. */
  private admissions = 0;
  private dimensions: readonly Dimension[] = [];
  private concurrency: number | undefined;
  /** Aligned with `dimensions`; kept by name in `meterByName` across reconfiguration. */
  private meters: Meter[] = [];
  private readonly meterByName = new Map<string, Meter>();
  private split = false;
  /** The largest plain token estimate every dimension can hold (-1: none, as `{ input, output }` is required). */
  private plainFit = -1;
  private readonly queue = new Fifo<Waiter>();
  private readonly deadlines = new DeadlineHeap<WaiterTerms>();
  private readonly headAlarm: Alarm;
  private readonly deadlineAlarm: Alarm;
  private inFlight = 0;
  /** In-flight reservations whose request counts can still be given back (`acquire`, or `refundOnError`). */
  private refundableInFlight = 0;
  private closed = false;
  private pumping = false;
  /** No admission at all before this monotonic time (a 429 whose limit type is unknown). */
  private pausedUntil = 0;
  /** Set until the first news of the key at start-up. */
  private probe: StartupProbe | undefined;
  private idleResolvers: (() => void)[] = [];
  private readonly host: ReservationHost = {
    // Only into the dimension the reservation was charged on, not one re-added under its name.
    give: (meter, amount, chargedAt) => {
      if (!meter.retired) this.store.give(meter.name, amount, chargedAt);
    },
    refunded: () => this.pump(),
    released: (lease, refundable) => this.onReleased(lease, refundable),
    parse: (headers, options) => this.parse(headers, options),
    apply: (view, headers, options, origin) => this.applyView(view, headers, options, origin),
  };
  /** `seq` of the freshest response whose limits were learned. */
  private learnedSeq = 0;
  private readonly runHost: RunHost = {
    readmit: (estimate, signal, notBefore, refundable) => this.readmit(estimate, signal, notBefore, refundable),
    now: () => this.clock.now(),
    warn: (warning) => this.warn(warning),
    classify: (error) => classifyFailure(error, this.parseOptions(undefined)),
  };
  private readonly abandon = (waiter: Waiter): void => {
    const wasHead = waiter === this.queue.head;
    this.dequeue(waiter);
    waiter.reject(waiter.signal!.reason);
    this.afterRemoval(wasHead);
  };

  constructor(options: LimiterOptions = {}) {
    const resolved = resolveOptions(options);
    const budget = buildBudget(resolved.limits);
    this.clock = resolved.clock;
    this.maxQueue = resolved.maxQueue;
    this.maxWaitMs = resolved.maxWaitMs;
    // A shared store knows how the key stands; a caller that set `initial` said how it does.

    this.warn = resolved.onWarning;
    this.limits = resolved.limits;
    this.provider = resolved.provider;
    if (resolved.store) {
      const fail = (waiter: Waiter, error: unknown): void => {
        this.dequeue(waiter);
        waiter.reject(error);
        this.afterRemoval(true);
      };
      this.shared = new SharedAdmission(
        resolved.store,
        this.clock,
        resolved.initialFraction,
        resolved.arrivalDelayMs,
        this.warn,
        {
          admit: (waiter, marks, lease) => {
            this.dequeue(waiter);
            waiter.resolve(
              this.admit(waiter.estimate, waiter.signal, this.clock.now(), waiter.refundable, marks, lease),
            );
          },
          late: (waiter, dimension, waitMs) => fail(waiter, this.waitTimeout(dimension, waitMs, waiter.maxWaitMs)),
          fail,
          pump: () => this.pump(),
          answered: () => this.deadlineAlarm.set(this.deadlines.earliest?.deadline ?? Infinity),
        },
      );
    }
    if (this.shared) this.store = this.shared;
    else {
      const memory = new MemoryStore(this.clock, resolved.initialFraction, resolved.arrivalDelayMs);
      this.store = memory;
      // A shared store knows how the key stands; a caller that set `initial` said how it does.
      if (options.initial === undefined) this.probe = new StartupProbe(memory);
    }
    this.headAlarm = new Alarm(this.clock, () => this.pump());
    this.deadlineAlarm = new Alarm(this.clock, () => this.expire());
    this.apply(this.learned.merge(budget));
  }

  /**
   * Waits for admission, runs `fn`, settles its reported usage and releases.
   * `fn` resolves to `{ value, used? }`; `value` is returned. If `fn` throws, the
   * charge stands (unless `refundOnError`) and the error is rethrown.
   */
  run<T>(
    estimate: Estimate,
    fn: (reservation: Reservation) => Promise<RunResult<T>> | RunResult<T>,
    options?: RunOptions,
  ): Promise<T> {
    let admitted: Reservation | undefined;
    let plan: RunPlan;
    try {
      if (typeof fn !== "function") throw new TypeError("run(): fn must be a function");
      plan = options
        ? { refundOnError: options.refundOnError === true, retry: retryPolicy(options.retry), signal: options.signal }
        : PLAIN_RUN;
      admitted = this.admitNow(estimate, options, plan.refundOnError);
    } catch (error) {
      return Promise.reject(error);
    }
    if (admitted) return runAdmitted(this.runHost, admitted, fn, plan);
    return this.enqueue(estimate, options, plan.refundOnError).then((reservation) =>
      runAdmitted(this.runHost, reservation, fn, plan),
    );
  }

  /** Waits for admission and returns the reservation; the caller must `release()` it. */
  acquire(estimate: Estimate, options?: AcquireOptions): Promise<Reservation> {
    try {
      // The caller may refund() what it acquired.
      const admitted = this.admitNow(estimate, options, true);
      return admitted ? Promise.resolve(admitted) : this.enqueue(estimate, options, true);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A reservation if `estimate` fits now and nobody is queued; else `undefined`.
   * Never waits. Not available with a shared store, which answers asynchronously.
   */
  tryAcquire(estimate: Estimate): Reservation | undefined {
    if (this.shared)
      throw new TypeError(
        "tryAcquire() needs the in-memory store; with a shared store use acquire(estimate, { maxWaitMs: 0 })",
      );
    return this.admitNow(estimate, undefined, true);
  }

  /**
   * Changes budgets at run time; waiters that can no longer fit are rejected. Throws on bad config, changing nothing.
   */
  setLimits(changes: LimitChanges): void {
    const limits = mergeLimits(this.limits, changes);
    const budget = buildBudget(limits);
    this.limits = limits;
    this.reconfigure(budget);
  }

  /**
   * Applies a response's rate-limit headers as the provider's current truth:
   * limits it reports cap the configured ones (or add budgets), levels are
   * lowered (never raised) to its remaining; `{ status: 429 }` pauses
   * admission. Returns the parsed view. For headers tied to one request, prefer
   * `reservation.sync`, which also discounts what was admitted after it.
   */
  sync(headers: HeaderInput, options?: SyncOptions): RateLimitView {
    // Current when received: nothing admitted so far is unseen (a shared store lowers to remaining as is).
    const markOf = (meter: Meter): number | undefined => (this.shared ? undefined : meter.admitted);
    return this.applyHeaders(headers, options, { seq: this.admissions, admittedAtMs: undefined, markOf });
  }

  private parse(headers: HeaderInput, options: SyncOptions | undefined): RateLimitView {
    return parseRateLimitHeaders(headers, this.parseOptions(options));
  }

  /** How this limiter reads headers: its clock, and the call's provider or its own. */
  private parseOptions(options: SyncOptions | undefined): ParseOptions {
    const provider = options?.provider ?? this.provider;
    return { wallNow: this.clock.wallNow(), ...(provider ? { provider } : {}) };
  }

  private applyHeaders(headers: HeaderInput, options: SyncOptions | undefined, origin: SyncOrigin): RateLimitView {
    const view = this.parse(headers, options);
    this.applyView(view, headers, options, origin);
    return view;
  }

  private applyView(
    view: RateLimitView,
    headers: HeaderInput,
    options: SyncOptions | undefined,
    origin: SyncOrigin,
  ): void {
    if (this.closed) return;
    this.endProbe();
    // A 429, read once: for the windows it may lengthen and for the pause it calls for.
    const failure =
      options?.status === 429
        ? classifyFailure({ status: 429, headers, body: options.body }, this.parseOptions(options))
        : undefined;
    // Headers from an older request never undo what a fresher one said.
    if (origin.seq >= this.learnedSeq) {
      this.learnedSeq = origin.seq;
      // A budget learned here starts full: admit only once the levels the view carries are synced.
      if (
        this.learned.learn(view, {
          now: this.clock.now(),
          origin,
          meters: this.shared ? undefined : this.meterByName,
          failure,
        })
      )
        this.reconfigure(buildBudget(this.limits), false);
    }
    if (this.shared) syncSharedLevels(view, this.meters, this.shared, origin, this.clock.now());
    else syncLevels(view, this.meters, this.store, origin, this.clock.now());
    if (failure) this.rateLimited(failure, origin.seq);
    this.afterRemoval(true);
  }

  /**
   * A 429: pause admission for the provider's hint, on the dimensions the body
   * names (else on all); with no hint, drain the binding bucket rather than
   * guess a pause. Billing 429s are not about rate and change nothing.
   */
  private rateLimited(failure: FailureClass, seq: number): void {
    if (failure.kind !== "rate") return;
    const units =
      failure.dimension === "requests"
        ? ["requests"]
        : failure.dimension === "tokens"
          ? ["tokens", "input", "output"]
          : undefined;
    const named = units ? this.meters.filter((m) => units.includes(m.dimension.unit)) : [];
    for (const meter of named.length > 0 ? named : this.meters) yieldShare(meter, this.store, seq, this.admissions);
    const now = this.clock.now();
    if (failure.retryAfterMs !== undefined) {
      const until = now + failure.retryAfterMs;
      if (named.length > 0) {
        for (const meter of named) this.store.pause(meter.name, until);
        alignToRetryHint(named, this.store, failure.retryAfterMs, now);
      } else {
        this.pausedUntil = Math.max(this.pausedUntil, until);
        this.shared?.pauseAll(failure.retryAfterMs);
      }
      return;
    }
    const levels = this.store.snapshot();
    const fullness = (m: Meter): number => (levels[m.name]?.available ?? 0) / m.dimension.capacity;
    const binding =
      named.length > 0
        ? named
        : this.meters.length > 0
          ? [this.meters.reduce((a, b) => (fullness(b) < fullness(a) ? b : a))]
          : [];
    for (const meter of binding) this.store.lower(meter.name, 0);
  }

  /**
   * Applies a new configured budget (merged with learned limits) and rejects waiters that
   * can no longer fit; then admits what fits, unless `admit` is false (the caller will).
   */
  private reconfigure(budget: Budget, admit = true): void {
    this.apply(this.learned.merge(budget));
    for (const waiter of [...this.queue]) {
      const problem = this.problemWith(waiter.estimate);
      if (!problem) continue;
      this.dequeue(waiter);
      waiter.reject(problem);
    }
    this.recountQueued();
    if (admit) this.afterRemoval(true);
  }

  /** Current levels of every dimension, the concurrency slots, and the queue. */
  snapshot(): LimiterSnapshot {
    const view = this.store.snapshot() as LimiterSnapshot;
    if (this.concurrency !== undefined) {
      view.concurrency = { limit: this.concurrency, available: this.concurrency - this.store.slotsInUse() };
    }
    view.queued = this.queue.size;
    view.inFlight = this.inFlight;
    return view;
  }

  /** Resolves when nothing is queued or in flight. */
  onIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  /**
   * Rejects every waiter with `LimiterClosedError` and clears timers; later
   * calls reject too. In-flight calls finish. Resolves once a shared store has
   * every settle, release and header sync made so far (at once in memory).
   */
  close(): Promise<void> {
    this.closed = true;
    for (const waiter of [...this.queue]) {
      this.dequeue(waiter);
      waiter.reject(new LimiterClosedError());
    }
    this.headAlarm.clear();
    this.deadlineAlarm.clear();
    const written = this.shared?.close() ?? Promise.resolve();
    this.notifyIdle();
    return written;
  }

  private apply({ dimensions, concurrency }: Budget): void {
    this.store.configure(dimensions, concurrency);
    const meters = dimensions.map((dimension) => {
      const kept = this.meterByName.get(dimension.name);
      // A dimension that changed what it counts is a new one: old charges are not in its units.
      const meter = kept?.dimension.unit === dimension.unit ? kept : createMeter(dimension);
      meter.dimension = dimension;
      return meter;
    });
    for (const old of this.meterByName.values()) old.retired = !meters.includes(old);
    this.meterByName.clear();
    for (const meter of meters) this.meterByName.set(meter.name, meter);
    this.meters = meters;
    this.dimensions = dimensions;
    this.concurrency = concurrency;
    this.split = needsSplitEstimate(dimensions);
    const capacities = dimensions.map((d) => (d.unit === "requests" ? (d.capacity >= 1 ? Infinity : -1) : d.capacity));
    this.plainFit = this.split ? -1 : Math.min(Infinity, ...capacities);
  }

  /** Why `estimate` can never be admitted under the current budgets, if it cannot. */
  private problemWith(estimate: Estimate): Error | undefined {
    // The common estimate, a plain token count that fits every capacity, takes two comparisons.
    if (typeof estimate === "number" && estimate >= 0 && estimate <= this.plainFit && estimate !== Infinity)
      return undefined;
    const problem = amountProblem("estimate", estimate, this.split);
    if (problem) return problem;
    for (const d of this.dimensions) {
      const cost = costOf(d.unit, estimate);
      if (cost > d.capacity) return new RequestTooLargeError(d.name, cost, d.capacity);
    }
    return undefined;
  }

  /** Validates, then admits at once when the queue is empty and everything fits. Throws on bad input. */
  private admitNow(
    estimate: Estimate,
    options: AcquireOptions | undefined,
    refundable: boolean,
  ): Reservation | undefined {
    if (this.closed) throw new LimiterClosedError();
    const problem = this.problemWith(estimate);
    if (problem) throw problem;
    const signal = options?.signal;
    if (options) {
      if (signal !== undefined && !(signal instanceof AbortSignal))
        throw new TypeError("signal must be an AbortSignal");
      if (options.maxWaitMs !== undefined) checkMaxWaitMs(options.maxWaitMs);
      signal?.throwIfAborted();
    }
    if (this.queue.size > 0 || this.paused()) return undefined;
    const now = this.clock.now();
    if (this.probe?.expired(now)) this.endProbe();
    return this.store.take(estimate, now) ? this.admit(estimate, signal, now, refundable) : undefined;
  }

  /** News of the key (headers, or a call done), or none in time: the start-up probe is over. */
  private endProbe(): void {
    if (!this.probe) return;
    this.probe.end();
    this.probe = undefined;
  }

  private paused(): boolean {
    if (this.pausedUntil === 0) return false;
    if (this.pausedUntil > this.clock.now()) return true;
    this.pausedUntil = 0;
    return false;
  }

  private admit(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    now: number,
    refundable: boolean,
    storeMarks?: readonly number[],
    lease?: string,
  ): Reservation {
    this.probe?.admitted(now);
    this.inFlight++;
    if (refundable) this.refundableInFlight++;
    return new Reservation(
      this.host,
      this.meters,
      estimate,
      signal,
      ++this.admissions,
      now,
      this.split,
      refundable,
      storeMarks,
      lease,
    );
  }

  private enqueue(estimate: Estimate, options: AcquireOptions | undefined, refundable: boolean): Promise<Reservation> {
    if (this.queue.size >= this.maxQueue) return Promise.reject(new QueueFullError(this.maxQueue));
    const maxWaitMs = options?.maxWaitMs ?? this.maxWaitMs;
    // A shared store's levels here are as of the last round trip: its booking answers instead.
    if (maxWaitMs !== Infinity && !this.shared) {
      const predicted = this.predictWait(estimate);
      if (predicted.waitMs > maxWaitMs)
        return Promise.reject(this.waitTimeout(predicted.dimension, predicted.waitMs, maxWaitMs));
    }
    return this.wait(estimate, options?.signal, maxWaitMs, 0, refundable);
  }

  /** A retry: back at the head of the queue, admitted no earlier than `notBefore`. */
  private readmit(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    notBefore: number,
    refundable: boolean,
  ): Promise<Reservation> {
    if (this.closed) return Promise.reject(new LimiterClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    return this.wait(estimate, signal, Infinity, notBefore, refundable);
  }

  /** Queues a request: at the tail, or at the head for a retry (`notBefore` > 0). */
  private wait(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    maxWaitMs: number,
    notBefore: number,
    refundable: boolean,
  ): Promise<Reservation> {
    const { waiter, promise } = Waiter.create(estimate, refundable);
    if (signal || maxWaitMs !== Infinity || notBefore > 0) {
      const terms = (waiter.terms = new WaiterTerms(waiter, signal, maxWaitMs, this.abandon));
      terms.notBefore = notBefore;
      if (signal) subscribe(signal, terms);
      if (maxWaitMs !== Infinity) {
        terms.deadline = this.clock.now() + maxWaitMs;
        this.deadlines.push(terms);
      }
    }
    if (notBefore > 0) this.queue.unshift(waiter);
    else this.queue.push(waiter);
    this.count(waiter, 1);
    if (maxWaitMs !== Infinity) this.deadlineAlarm.set(this.deadlines.earliest!.deadline);
    if (waiter === this.queue.head) {
      if (this.shared) this.pump();
      else this.scheduleHead(waiter);
    }
    return promise;
  }

  /**
   * A lower bound on the wait for `estimate` behind everything queued that
   * cannot time out: as if the held reservations gave back, right now, all
   * they still can (their tokens down to zero; a request only where it may be refunded).
   */
  private predictWait(estimate: Estimate): { dimension: string; waitMs: number } {
    const levels = this.store.snapshot();
    let dimension = "queue";
    let waitMs = 0;
    for (const meter of this.meters) {
      const d = meter.dimension;
      const level = levels[d.name]?.available ?? d.capacity;
      const returnable = d.unit === "requests" ? this.refundableInFlight : meter.held;
      const optimistic = Math.min(d.capacity, level + returnable);
      const needed = meter.queued + costOf(d.unit, estimate) - optimistic;
      const wait = needed > 0 ? (needed * d.windowMs) / d.limit : 0;
      if (wait > waitMs) {
        waitMs = wait;
        dimension = d.name;
      }
    }
    return { dimension, waitMs };
  }

  /** Admits from the head of the queue while everything fits; then arms the timer for the new head. */
  private pump(): void {
    if (this.pumping || this.closed) return;
    const first = this.queue.head;
    if (!first) {
      // The common case after a release or refund: nothing waits.
      this.headAlarm.clear();
      return;
    }
    if (this.shared) {
      this.pumpShared(this.shared, first);
      return;
    }
    this.pumping = true;
    try {
      for (let head = this.queue.head; head; head = this.queue.head) {
        const now = this.clock.now();
        if (this.probe?.expired(now)) this.endProbe();
        if (this.paused() || head.notBefore > now || !this.store.take(head.estimate, now)) {
          this.scheduleHead(head);
          return;
        }
        this.dequeue(head);
        head.resolve(this.admit(head.estimate, head.signal, now, head.refundable));
      }
      this.headAlarm.clear();
    } finally {
      this.pumping = false;
    }
  }

  /** The head books through the shared store once nothing local holds it back. */
  private pumpShared(shared: SharedAdmission, head: Waiter): void {
    if (this.paused() || head.notBefore > this.clock.now()) this.scheduleHead(head);
    else shared.serve(head);
  }

  private scheduleHead(head: Waiter): void {
    const now = this.clock.now();
    const hold = Math.max(this.pausedUntil, head.notBefore);
    // Infinity: only a concurrency slot is missing, and a release will pump. A probe's hold ends on its own too.
    const at = hold > now ? hold : now + this.store.blocker(head.estimate).waitMs;
    this.headAlarm.set(this.probe ? Math.min(at, this.probe.holdEnds) : at);
  }

  private dequeue(waiter: Waiter): void {
    this.shared?.abandon(waiter);
    this.queue.remove(waiter);
    this.count(waiter, -1);
    if (this.queue.size === 0) for (const meter of this.meters) meter.queued = 0; // no float drift left behind
    const terms = waiter.terms;
    if (!terms) return;
    if (terms.signal) unsubscribe(terms.signal, terms);
    if (terms.heapIndex >= 0) {
      const wasEarliest = terms === this.deadlines.earliest;
      this.deadlines.remove(terms);
      if (wasEarliest) this.deadlineAlarm.set(this.deadlines.earliest?.deadline ?? Infinity);
    }
  }

  /** After waiters left: the new head may fit now, and the limiter may be idle. */
  private afterRemoval(headChanged: boolean): void {
    if (headChanged) {
      if (this.queue.size === 0) this.headAlarm.clear();
      else this.pump();
    }
    this.notifyIdle();
  }

  private expire(): void {
    // A waiter that can be admitted at its deadline is admitted, not timed out.
    this.pump();
    const now = this.clock.now();
    let headChanged = false;
    for (let terms = this.deadlines.earliest; terms && terms.deadline <= now; terms = this.deadlines.earliest) {
      const { waiter } = terms;
      // Its booking's answer decides (and re-arms this alarm).
      if (this.shared?.awaitingAnswer(waiter)) break;
      headChanged ||= waiter === this.queue.head;
      const { dimension, waitMs } = this.store.blocker(waiter.estimate);
      this.dequeue(waiter);
      // What it still lacks, said as the whole wait it needed; a missing slot or a store down cannot be timed.
      const blocking = this.shared?.unavailable
        ? "store"
        : waitMs > 0
          ? dimension
          : this.queue.size > 0
            ? "queue"
            : dimension || "queue";
      const needed = waitMs > 0 && waitMs !== Infinity ? waiter.maxWaitMs + waitMs : waiter.maxWaitMs;
      waiter.reject(this.waitTimeout(blocking, needed, waiter.maxWaitMs, waitMs));
    }
    this.afterRemoval(headChanged);
  }

  /** A `WaitTimeoutError` saying why: the dimension and when it has room, the slots held, or the store down. */
  private waitTimeout(dimension: string, waitMs: number, maxWaitMs: number, remainingMs = waitMs): WaitTimeoutError {
    const windowMs = this.meterByName.get(dimension)?.dimension.windowMs;
    const availableAt =
      windowMs !== undefined && remainingMs !== Infinity ? this.clock.wallNow() + remainingMs : undefined;
    return new WaitTimeoutError(dimension, waitMs, maxWaitMs, { slots: this.concurrency, windowMs, availableAt });
  }

  /**
   * Adds (`sign` 1) or removes (-1) a waiter's cost in the queued tallies that
   * `predictWait` reads. Waiters with a deadline may time out before their
   * turn, so they are left out: the prediction stays a lower bound.
   */
  private count(waiter: Waiter, sign: 1 | -1): void {
    if (waiter.maxWaitMs !== Infinity) return;
    for (const meter of this.meters) meter.queued += sign * costOf(meter.dimension.unit, waiter.estimate);
  }

  private recountQueued(): void {
    for (const meter of this.meters) meter.queued = 0;
    for (const waiter of this.queue) this.count(waiter, 1);
  }

  private onReleased(lease: string | undefined, refundable: boolean): void {
    this.inFlight--;
    if (refundable) this.refundableInFlight--;
    this.endProbe();
    this.store.releaseSlot(lease);
    this.pump();
    this.notifyIdle();
  }

  private isIdle(): boolean {
    return this.queue.size === 0 && this.inFlight === 0;
  }

  private notifyIdle(): void {
    if (this.idleResolvers.length === 0 || !this.isIdle()) return;
    const resolvers = this.idleResolvers;
    this.idleResolvers = [];
    for (const resolve of resolvers) resolve();
  }
}
