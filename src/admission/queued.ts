import type { Blocker } from "../buckets/types.js";
import type { Admission, AdmissionLevels, AdmissionParts, OnQuota } from "./admission.js";
import type { QuotaHold, Quotas } from "../core/quotas.js";
import { subscribe, unsubscribe } from "../core/abort-fanout.js";
import { costOf } from "../core/amounts.js";
import type { Clock } from "../core/clock.js";
import { LimiterClosedError, QueueFullError, WaitTimeoutError } from "../core/errors.js";
import type { Ledger } from "../core/ledger.js";
import type { Estimate } from "../core/limits.js";
import type { Meters } from "../core/meters.js";
import type { AdmittedCall } from "../core/reservation.js";
import type { Channels } from "../events/hub.js";
import { rejection } from "../events/payloads.js";
import type { PauseEnd, PauseState } from "../events/types.js";
import { Alarm } from "./alarm.js";
import { PauseHolds, PROBE_MS, type Hold } from "./pause-holds.js";
import { DeadlineHeap } from "./queue.js";
import { Scheduler, type Lane } from "./scheduler.js";
import { Waiter, WaiterTerms } from "./waiter.js";
import { NEVER, SPENT } from "../core/quotas.js";

/**
 * Admission: a queue of requests (FIFO within a priority class and tenant,
 * see {@link Scheduler}), each admitted once every dimension has room, with
 * abort signals, deadlines (`maxWaitMs`) and retries holding their place at
 * the head of their lane. Where the buckets live is the subclass's: in this process
 * (`LocalAdmission`) or in a store shared by every replica (`SharedAdmission`).
 */
export abstract class QueuedAdmission implements Admission {
  protected readonly clock: Clock;
  protected readonly meters: Meters;
  protected readonly ledger: Ledger;
  protected readonly queue: Scheduler<Waiter>;
  private readonly maxQueue: number;
  private readonly deadlines = new DeadlineHeap<WaiterTerms>();
  protected readonly headAlarm: Alarm;
  private readonly deadlineAlarm: Alarm;
  /** No admission at all before this monotonic time (a 429 whose limit type is unknown). */
  protected pausedUntil = 0;
  /** What 429s paused, and until when. */
  protected readonly holds = new PauseHolds();
  private shut = false;
  private idleResolvers: (() => void)[] = [];
  protected readonly events: Channels;
  /** The priority classes' names, by rank. */
  private readonly priorities: readonly string[];
  /** Calendar quotas and held budgets, when configured. */
  protected readonly quotas: Quotas | undefined;
  /** The limiter's `onQuota`. */
  protected readonly onQuota: OnQuota;
  /** What the last take holds on the quotas, for the reservation opened next (then cleared). */
  protected quotaHold: QuotaHold | undefined = undefined;
  private readonly abandon = (waiter: Waiter): void => {
    const wasHead = waiter === this.queue.head;
    this.dequeue(waiter);
    this.refused(waiter, waiter.signal!.reason);
    waiter.reject(waiter.signal!.reason);
    this.afterRemoval(wasHead);
  };

  constructor({ clock, lag, meters, ledger, maxQueue, reserves, priorities, events, quotas, onQuota }: AdmissionParts) {
    this.quotas = quotas;
    this.onQuota = onQuota ?? "reject";
    this.queue = new Scheduler<Waiter>(reserves, (waiter) => this.fairCost(waiter.estimate));
    this.priorities = priorities;
    this.events = events;
    this.clock = clock;
    this.meters = meters;
    this.ledger = ledger;
    this.maxQueue = maxQueue;
    this.headAlarm = new Alarm(clock, () => this.pump(), lag);
    this.deadlineAlarm = new Alarm(clock, () => this.expire(), lag);
  }

  /** Takes the budget now in `meters` (its dimensions and concurrency) into the buckets. */
  abstract configure(): void;

  /**
   * The reservation if `estimate` fits at once and nothing waits, else `undefined`;
   * for `tryAcquire`, which never waits (TypeError where admission is asynchronous).
   */
  abstract tryNow(estimate: Estimate, rank: number): AdmittedCall | undefined;

  /** A charge of `amount` on dimension `name` given back (negative: charged more), made at `chargedAt`. */
  abstract give(name: string, amount: number, chargedAt: number): void;

  /** A draw of `amount` on dimension `name`, made at `chargedAt`, has reached the provider (its response came back). */
  abstract arrived(name: string, amount: number, chargedAt: number): void;

  /** The current levels of every dimension, and the slots in use. */
  abstract levels(): AdmissionLevels;

  /** Admits from `head` on what fits; then waits for what the new head lacks. */
  protected abstract serve(head: Waiter): void;

  /**
   * Takes `estimate` at `now` for admission at once, called when nothing waits and nothing holds admission
   * back: `true`, or the store's marks to admit with; `undefined` when it does not fit now.
   */
  protected abstract takeNow(
    estimate: Estimate,
    now: number,
    reserve: number,
    tenant: string | undefined,
  ): readonly number[] | true | undefined;

  /** What keeps `waiter` out now, for a waiter timing out. */
  protected abstract blocker(waiter: Waiter): Blocker;

  /** Requests waiting for admission. */
  get queued(): number {
    return this.queue.size;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.shut;
  }

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
  ): AdmittedCall | undefined {
    const queue = this.queue;
    if ((queue.size > 0 && queue.waitingAtOrAbove(rank)) || this.paused()) return undefined;
    const now = this.clock.now();
    const taken = this.takeNow(estimate, now, queue.bands[rank]!.reserve, tenant);
    if (taken === undefined) return undefined;
    if (this.holds.probing) this.probedThrough(now);
    this.opened(estimate, now);
    const marks = taken === true ? undefined : taken;
    const budget = this.takenHold();
    return this.ledger.open(
      estimate,
      signal,
      now,
      refundable,
      this.priorities[rank]!,
      tenant,
      marks,
      undefined,
      now,
      budget,
    );
  }

  /** Queues a request at the tail; rejects at once if the queue is full or the wait is known to be too long. */
  enqueue(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    maxWaitMs: number,
    refundable: boolean,
    rank: number,
    tenant: string | undefined,
    onQuota?: OnQuota,
  ): Promise<AdmittedCall> {
    if (this.queue.size >= this.maxQueue) {
      return this.refusedAtOnce(estimate, new QueueFullError(this.maxQueue), rank, tenant);
    }
    const refusal = this.quotas ? this.quotaRefusal(estimate, tenant, onQuota ?? this.onQuota, maxWaitMs) : undefined;
    if (refusal) return this.refusedAtOnce(estimate, refusal, rank, tenant);
    // The lane is made only for a call that waits: one refused here leaves no tenant behind.
    const tooLong = maxWaitMs === Infinity ? undefined : this.knownTooLong(estimate, maxWaitMs, rank, tenant);
    if (tooLong) return this.refusedAtOnce(estimate, tooLong, rank, tenant);
    return this.wait(estimate, signal, maxWaitMs, 0, refundable, this.queue.lane(rank, tenant), onQuota);
  }

  /**
   * The error that refuses at once a call the quotas cannot hold: one larger than a whole limit, one whose
   * period cannot hold it (unless it waits for the next, and that comes within `maxWaitMs`).
   */
  protected quotaRefusal(
    estimate: Estimate,
    tenant: string | undefined,
    onQuota: OnQuota,
    maxWaitMs: number,
  ): Error | undefined {
    const quotas = this.quotas!;
    const verdict = quotas.verdict(estimate, tenant);
    if (verdict === NEVER || (verdict === SPENT && onQuota === "reject")) return quotas.refusal();
    if (verdict !== SPENT) return undefined;
    const { name, waitMs, periodMs, resetsAt } = quotas.waitMs();
    if (waitMs <= maxWaitMs) return undefined;
    return new WaitTimeoutError(name, waitMs, maxWaitMs, { windowMs: periodMs, availableAt: resetsAt });
  }

  /** What the last take holds on the quotas, handed to the reservation being opened. */
  protected takenHold(): QuotaHold | undefined {
    const hold = this.quotaHold;
    this.quotaHold = undefined;
    return hold;
  }

  /** A retry: back at the head of its lane, admitted no earlier than `notBefore`. */
  readmit(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    notBefore: number,
    refundable: boolean,
    rank: number,
    tenant: string | undefined,
  ): Promise<AdmittedCall> {
    if (this.shut) return this.refusedAtOnce(estimate, new LimiterClosedError(), rank, tenant);
    if (signal?.aborted) return this.refusedAtOnce(estimate, signal.reason, rank, tenant);
    // A longer hint is a pause's to hold (probed, or lifted): the retry is held a stretch at most, then is its probe.
    const until = Math.min(notBefore, this.clock.now() + PROBE_MS);
    return this.wait(estimate, signal, Infinity, until, refundable, this.queue.lane(rank, tenant));
  }

  /** Rejects every waiter `problemWith` finds a problem with (the budget changed), with that problem. */
  rejectWhere(problemWith: (estimate: Estimate, reserve: number) => Error | undefined): void {
    for (const waiter of [...this.queue]) {
      const problem = problemWith(waiter.estimate, waiter.reserve);
      if (!problem) continue;
      this.dequeue(waiter);
      this.refused(waiter, problem);
      waiter.reject(problem);
    }
    for (const meter of this.meters.list) meter.queued.fill(0);
    for (const waiter of this.queue) this.count(waiter, 1);
  }

  /**
   * A 429 asked for a pause of `ms` on `names` (every dimension: `undefined`), with `seq` admissions counted
   * so far; `perDay`: it named a per-day quota. A pause longer than {@link PROBE_MS} is put in force a
   * stretch at a time (see {@link PauseHolds}); any other for the whole of it.
   */
  hold(names: readonly string[] | undefined, ms: number, perDay: boolean, seq: number): void {
    if (!(ms > 0)) return;
    const now = this.clock.now();
    const hold = this.holds.add(names, ms, perDay, seq, now);
    this.enforce(hold);
    this.events.paused?.emit(this.describe(hold, now));
  }

  /**
   * A response to the call admitted `seq`th (`current`: headers taken as news of now) succeeded, reporting
   * `reported`: the probed pauses set before that call end where it shows room (no remaining of 0 on what
   * they pause). Per-day pauses and those of a minute or less wait for their time.
   */
  succeeded(seq: number, current: boolean, reported: Readonly<Record<string, { readonly remaining?: number }>>): void {
    if (!this.holds.probing) return;
    const spent = (name: string): boolean => reported[name]?.remaining === 0;
    const hasRoom = (hold: Hold): boolean =>
      hold.names ? !hold.names.some(spent) : !this.meters.list.some((m) => spent(m.name));
    const lifted = this.holds.lift(seq, current, hasRoom, this.clock.now());
    if (lifted.length > 0) this.lifted(lifted, "response");
  }

  /**
   * Ends every pause, in every process of a shared store too (`limiter.resume()`, `setLimits`); retries held
   * for their hint may go at once.
   */
  liftPauses(reason: "resume" | "setLimits"): void {
    const lifted = this.holds.clear();
    for (const waiter of this.queue) if (waiter.terms) waiter.terms.notBefore = 0;
    this.unpause(undefined);
    this.pausedUntil = 0;
    this.afterLift(lifted, reason);
  }

  /** What 429s paused that still holds, as `snapshot()` shows it. */
  pauses(): PauseState[] | undefined {
    const now = this.clock.now();
    const standing = this.holds.standing(now);
    return standing.length === 0 ? undefined : standing.map((hold) => this.describe(hold, now));
  }

  /** No admission at all before monotonic time `until`. */
  protected pauseAll(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** No admission with a positive cost on dimension `name` before monotonic time `until`. */
  protected abstract pauseDimension(name: string, until: number): void;

  /** Ends the pauses on `names` (`undefined`: on every dimension, and the pause of everything). */
  protected abstract unpause(names: readonly string[] | undefined): void;

  /** News of the key (headers, or a call done). */
  heard(): void {}

  /** Capacity came back or the levels changed: admit what fits now; the limiter may be idle. */
  admitWhatFits(): void {
    this.afterRemoval(true);
  }

  /** A reservation was released: its slot (or its shared-store lease) is free. */
  released(_lease: string | undefined): void {
    this.pump();
    this.notifyIdle();
  }

  /** Resolves when nothing is queued or in flight. */
  onIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  /** Resolves once every write to a shared store made so far is answered; at once in memory. */
  written(): Promise<void> {
    return Promise.resolve();
  }

  /** Rejects every waiter with `LimiterClosedError`, clears timers; resolves once writes made so far are done. */
  close(): Promise<void> {
    this.shut = true;
    for (const waiter of [...this.queue]) {
      this.dequeue(waiter);
      const closed = new LimiterClosedError();
      this.refused(waiter, closed);
      waiter.reject(closed);
    }
    this.headAlarm.clear();
    this.deadlineAlarm.clear();
    const written = this.finish();
    this.notifyIdle();
    return written;
  }

  /** Closing: stops what admits in the background; resolves once the writes made so far are done. */
  protected finish(): Promise<void> {
    return Promise.resolve();
  }

  /** A timeout to reject `estimate` with at once, when its wait is known to exceed `maxWaitMs`. */
  protected knownTooLong(
    _estimate: Estimate,
    _maxWaitMs: number,
    _rank: number,
    _tenant: string | undefined,
  ): WaitTimeoutError | undefined {
    return undefined;
  }

  /** Whether `waiter`'s deadline must wait for an answer on its way (which admits or refuses it). */
  protected decidesLater(_waiter: Waiter): boolean {
    return false;
  }

  /** The requests waiting, head first. */
  waiting(): Iterable<Waiter> {
    return this.queue;
  }

  /** Whether what admits is unreachable now (a shared store's outage). */
  protected get unavailable(): boolean {
    return false;
  }

  /** A request for `estimate` is being admitted at `now`. */
  protected opened(_estimate: Estimate, _now: number): void {}

  /** `waiter` left the queue (admitted, aborted, timed out or refused). */
  protected left(_waiter: Waiter): void {}

  protected paused(): boolean {
    if (this.pausedUntil === 0) return false;
    if (this.pausedUntil > this.clock.now()) return true;
    this.pausedUntil = 0;
    return false;
  }

  /** Puts the stretch of `hold` now due in force, where the buckets live. */
  private enforce(hold: Hold): void {
    if (hold.names === undefined) this.pauseAll(hold.stretchEnds);
    else for (const name of hold.names) this.pauseDimension(name, hold.stretchEnds);
  }

  /** A call admitted at `now` went through probed pauses whose stretch was over: they hold on for another. */
  private probedThrough(now: number): void {
    for (const hold of this.holds.probed(now)) this.enforce(hold);
  }

  /** `lifted` ended on a response: their pauses go, those still standing stay in force. */
  private lifted(lifted: readonly Hold[], reason: PauseEnd): void {
    for (const hold of lifted) {
      this.unpause(hold.names);
      if (hold.names === undefined) this.pausedUntil = 0;
    }
    for (const hold of this.holds.standing(this.clock.now())) this.enforce(hold);
    this.afterLift(lifted, reason);
  }

  private afterLift(lifted: readonly Hold[], reason: PauseEnd): void {
    const resumed = this.events.resumed;
    if (resumed) {
      const now = this.clock.now();
      for (const hold of lifted) resumed.emit({ ...this.describe(hold, now), reason });
    }
    this.admitWhatFits();
  }

  /** `hold` as events and snapshots tell it: names, and epoch ms. */
  private describe(hold: Hold, now: number): PauseState {
    const wall = this.clock.wallNow() - now;
    return {
      dimensions: hold.names ?? this.meters.list.map((m) => m.name),
      all: hold.names === undefined,
      until: Math.round(hold.until + wall),
      heldUntil: Math.round(Math.max(now, hold.stretchEnds) + wall),
      probed: hold.probed,
    };
  }

  /** Admits from the head of the queue what fits; then waits for what the new head lacks. */
  protected pump(): void {
    if (this.shut) return;
    const head = this.queue.head;
    // The common case after a release or refund: nothing waits.
    if (head) this.serve(head);
    else this.headAlarm.clear();
  }

  /** Dequeues `waiter` and resolves it with its reservation. */
  protected admit(waiter: Waiter, now: number, marks?: readonly number[], lease?: string): void {
    this.dequeue(waiter, true);
    if (this.holds.probing) this.probedThrough(now);
    this.opened(waiter.estimate, now);
    const { lane } = waiter;
    const priority = this.priorities[lane.band.rank]!;
    waiter.resolve(
      this.ledger.open(
        waiter.estimate,
        waiter.signal,
        now,
        waiter.refundable,
        priority,
        lane.tenant,
        marks,
        lease,
        waiter.queuedAt,
        this.takenHold(),
      ),
    );
  }

  /** Dequeues `waiter` and rejects it with `error`; the new head may be admitted. */
  protected fail(waiter: Waiter, error: unknown): void {
    this.dequeue(waiter);
    this.refused(waiter, error);
    waiter.reject(error);
    this.afterRemoval(true);
  }

  /** Queues a request in `lane`: at the tail, or at the head for a retry (`notBefore` > 0). */
  private wait(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    maxWaitMs: number,
    notBefore: number,
    refundable: boolean,
    lane: Lane<Waiter>,
    onQuota?: OnQuota,
  ): Promise<AdmittedCall> {
    const { waiter, promise } = Waiter.create(estimate, lane, refundable, Math.floor(this.clock.now()));
    if (signal || maxWaitMs !== Infinity || notBefore > 0 || onQuota !== undefined) {
      const terms = (waiter.terms = new WaiterTerms(waiter, signal, maxWaitMs, this.abandon));
      terms.notBefore = notBefore;
      terms.onQuota = onQuota;
      if (signal) subscribe(signal, terms);
      if (maxWaitMs !== Infinity) {
        terms.deadline = this.clock.now() + maxWaitMs;
        this.deadlines.push(terms);
      }
    }
    if (notBefore > 0) this.queue.unshift(waiter);
    else this.queue.push(waiter);
    this.count(waiter, 1);
    this.events.queued?.emit({
      estimate,
      priority: this.priorities[lane.band.rank]!,
      tenant: lane.tenant,
      queued: this.queue.size,
      retry: notBefore > 0,
    });
    if (maxWaitMs !== Infinity) this.deadlineAlarm.set(this.deadlines.earliest!.deadline);
    if (waiter === this.queue.head) this.headArrived(waiter);
    return promise;
  }

  /** A waiter became the head of the queue (it was empty, or the waiter's class is more urgent). */
  protected headArrived(_head: Waiter): void {
    this.pump();
  }

  /** Takes `waiter` out of the queue: `served` (admitted), or it left. */
  private dequeue(waiter: Waiter, served = false): void {
    this.left(waiter);
    this.queue.remove(waiter, served);
    this.count(waiter, -1);
    if (this.queue.size === 0) for (const meter of this.meters.list) meter.queued.fill(0); // no float drift left behind
    const terms = waiter.terms;
    if (!terms) return;
    if (terms.signal) unsubscribe(terms.signal, terms);
    if (terms.heapIndex >= 0) {
      const wasEarliest = terms === this.deadlines.earliest;
      this.deadlines.remove(terms);
      if (wasEarliest) this.rearmDeadlines();
    }
  }

  /** Deadlines held back by `decidesLater` may now be judged. */
  protected rearmDeadlines(): void {
    this.deadlineAlarm.set(this.deadlines.earliest?.deadline ?? Infinity);
  }

  /** After waiters left: the new head may fit now, and the limiter may be idle. */
  protected afterRemoval(headChanged: boolean): void {
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
      if (this.decidesLater(waiter)) break;
      headChanged ||= waiter === this.queue.head;
      const { dimension, waitMs } = this.blocker(waiter);
      this.dequeue(waiter);
      // What it still lacks, said as the whole wait it needed; a missing slot or a store down cannot be timed.
      const blocking = this.unavailable
        ? "store"
        : waitMs > 0
          ? dimension
          : this.queue.size > 0
            ? "queue"
            : dimension || "queue";
      const needed = waitMs > 0 && waitMs !== Infinity ? waiter.maxWaitMs + waitMs : waiter.maxWaitMs;
      const timeout = this.waitTimeout(blocking, needed, waiter.maxWaitMs, waitMs);
      this.refused(waiter, timeout);
      waiter.reject(timeout);
    }
    this.afterRemoval(headChanged);
  }

  /** A `WaitTimeoutError` saying why: the dimension and when it has room, the slots held, or the store down. */
  protected waitTimeout(dimension: string, waitMs: number, maxWaitMs: number, remainingMs = waitMs): WaitTimeoutError {
    const windowMs = this.meters.byName.get(dimension)?.dimension.windowMs;
    const availableAt =
      windowMs !== undefined && remainingMs !== Infinity ? this.clock.wallNow() + remainingMs : undefined;
    return new WaitTimeoutError(dimension, waitMs, maxWaitMs, {
      slots: this.meters.concurrency,
      windowMs,
      availableAt,
    });
  }

  /**
   * Adds (`sign` 1) or removes (-1) a waiter's cost in its class's queued
   * tallies that the wait prediction reads. Waiters with a deadline may time out
   * before their turn, so they are left out: the prediction stays a lower bound.
   */
  private count(waiter: Waiter, sign: 1 | -1): void {
    if (waiter.maxWaitMs !== Infinity) return;
    const rank = waiter.lane.band.rank;
    for (const meter of this.meters.list) {
      meter.queued[rank] = (meter.queued[rank] ?? 0) + sign * costOf(meter.dimension.unit, waiter.estimate);
    }
  }

  /** A request's cost for sharing a class between tenants: ms of refill on the dimension it loads most. */
  private fairCost(estimate: Estimate): number {
    let most = 0;
    for (const { dimension: d } of this.meters.list) {
      if (!(d.limit > 0)) continue;
      const ms = (costOf(d.unit, estimate) * d.windowMs) / d.limit;
      if (ms > most) most = ms;
    }
    return most;
  }

  /** Tells `rejected` listeners that `waiter` is refused with `error`. */
  private refused(waiter: Waiter, error: unknown): void {
    const rejected = this.events.rejected;
    if (!rejected) return;
    const { lane } = waiter;
    const waitMs = this.clock.now() - waiter.queuedAt;
    rejected.emit(rejection(waiter.estimate, error, waitMs, this.priorities[lane.band.rank]!, lane.tenant));
  }

  /** A request of class `rank` and `tenant` refused before it queued. */
  private refusedAtOnce(estimate: Estimate, error: unknown, rank: number, tenant: string | undefined): Promise<never> {
    this.events.rejected?.emit(rejection(estimate, error, 0, this.priorities[rank]!, tenant));
    return Promise.reject(error);
  }

  private isIdle(): boolean {
    return this.queue.size === 0 && this.ledger.inFlight === 0;
  }

  protected notifyIdle(): void {
    if (this.idleResolvers.length === 0 || !this.isIdle()) return;
    const resolvers = this.idleResolvers;
    this.idleResolvers = [];
    for (const resolve of resolvers) resolve();
  }
}
