import { LocalBuckets } from "../buckets/local-buckets.js";
import type { Blocker } from "../buckets/types.js";
import { afterMicrotasks } from "../core/after-microtasks.js";
import { costOf } from "../core/amounts.js";
import type { AdmittedCall } from "../core/reservation.js";
import {
  BOOKING_BATCH,
  checkFailurePolicy,
  DUE_POLL_MS,
  type Booking,
  type StoreFailurePolicy,
} from "../store/shared-store.js";
import type { Estimate } from "../core/limits.js";
import type { AdmissionLevels, AdmissionParts } from "./admission.js";
import { Alarm } from "./alarm.js";
import { CREDIT_HOT_MS, CREDIT_STREAK } from "./credit.js";
import { QueuedAdmission } from "./queued.js";
import type { StoreLink } from "./store-link.js";
import type { Waiter } from "./waiter.js";

/** The lease of a call admitted by the local fallback while the store was down. */
const LOCAL_LEASE = "local";
/** A missing concurrency slot is looked for again at least this often (a local release looks at once). */
const SLOT_POLL_MAX_MS = 1_000;

/** A booking call on its way, for the queue's head and the waiters right behind it, in order. */
interface Batch {
  readonly waiters: readonly Waiter[];
  /** Per waiter, its cost on each dimension. */
  readonly costs: readonly (readonly number[])[];
  /** The waiters still queued; what the call takes for one that left is given back. */
  readonly queued: Set<Waiter>;
  /** Per dimension, what the call books after the waiters as credit (see `StoreLink.creditFor`). */
  readonly slice: readonly number[] | undefined;
  /** The link's `generation` when sent. */
  readonly generation: number;
}

/** The head's booking for later, waiting to come due (then for a concurrency lease). */
interface Due {
  readonly waiter: Waiter;
  readonly costs: readonly number[];
  /** The refill it took besides its costs, given back with them (see {@link Booking.lost}). */
  readonly lost: readonly number[];
  readonly marks: readonly number[];
  /** Monotonic time it is due, as the store last said. */
  at: number;
}

/**
 * Admission through a shared store (see {@link StoreLink}): the head of the
 * local queue and the waiters behind it book their costs in the store in one
 * round trip. Those that fit are admitted at once, in order; the first that
 * does not is booked for later and, alone, waits until it is due, takes a
 * concurrency lease if one is needed, and is admitted; the waiters behind it
 * book after it. So a process holds at most one booking for later, and
 * processes are served in booking order. A caller admitting one request after
 * another books credit with them, and is admitted from it with no round trip
 * (see `Credit`); so do callers in a loop, whose whole queue comes back as
 * one. While the store is unreachable, its failure policy decides.
 */
export class SharedAdmission extends QueuedAdmission {
  /** At most one of these at a time: a booking call on its way, or its booking for later. */
  private batch: Batch | undefined;
  private due: Due | undefined;
  /** Whether a booking call waits for this tick's callers to queue up; then whether they have. */
  private gathering = false;
  private gathered = false;
  private readonly alarm: Alarm;
  private readonly policy: StoreFailurePolicy;
  private readonly fallback: LocalBuckets | undefined;
  /** Monotonic time of this process's latest admission: a lone head served soon after books credit. */
  private lastAdmittedAt = -Infinity;
  /** How many requests in a row, up to the latest, came within {@link CREDIT_HOT_MS} of the admission before. */
  private streak = 0;

  constructor(
    parts: AdmissionParts,
    private readonly link: StoreLink,
    initialFraction: number,
    /** Applied as it is: the store's draws on their way do not follow the event loop's lag (yet). */
    private readonly arrivalDelayMs: number,
  ) {
    super(parts);
    this.policy = link.store.onError ?? "fail-closed";
    const local = checkFailurePolicy(this.policy);
    this.fallback =
      local === undefined
        ? undefined
        : new LocalBuckets(parts.clock, initialFraction, arrivalDelayMs, undefined, parts.lag);
    this.alarm = new Alarm(parts.clock, () => this.onAlarm(), parts.lag);
  }

  configure(): void {
    const { dimensions, concurrency } = this.meters;
    this.link.configure(dimensions, concurrency);
    if (this.fallback && typeof this.policy === "object") {
      const f = this.policy.local;
      this.fallback.configure(
        dimensions.map((d) => ({ ...d, limit: d.limit * f, capacity: d.capacity * f })),
        concurrency === undefined ? undefined : Math.max(1, Math.floor(concurrency * f)),
      );
    }
  }

  tryNow(): AdmittedCall | undefined {
    throw new TypeError(
      "tryAcquire() needs the in-memory store; with a shared store use acquire(estimate, { maxWaitMs: 0 })",
    );
  }

  give(name: string, amount: number, chargedAt: number): void {
    // A refund says its call completed: its draw is no longer on its way.
    this.link.onTheirWay.arrived(name, amount, chargedAt);
    this.link.give(name, amount);
  }

  arrived(name: string, amount: number, chargedAt: number): void {
    this.link.onTheirWay.arrived(name, amount, chargedAt);
  }

  /**
   * A call admitted at `now` drew `estimate`: on its way to the provider, as header sync counts it; and a run
   * of requests one after another goes on from it.
   */
  protected override opened(estimate: Estimate, now: number): void {
    this.lastAdmittedAt = now;
    for (const { name, dimension } of this.meters.list)
      this.link.onTheirWay.sent(name, costOf(dimension.unit, estimate), now);
  }

  levels(): AdmissionLevels {
    return {
      dimensions: this.link.snapshot(),
      slotsInUse: this.link.slotsInUse,
      arrivalAllowanceMs: this.arrivalDelayMs,
    };
  }

  /** A reservation ended: its lease goes back. */
  override released(lease: string | undefined): void {
    if (lease === LOCAL_LEASE) this.fallback?.releaseSlot();
    else if (lease !== undefined) this.link.releaseLease(lease);
    super.released(lease);
  }

  /** No admission anywhere before `until`: in this process, and (with a positive cost) in every other. */
  protected override pauseAll(until: number): void {
    super.pauseAll(until);
    this.link.pauseAll(until - this.clock.now());
  }

  protected pauseDimension(name: string, until: number): void {
    this.link.pause(name, until);
  }

  /** Ends the pauses of `names` (`undefined`: every one) in the store: for every process. */
  protected unpause(names: readonly string[] | undefined): void {
    this.link.unpause(names);
  }

  /** Resolves once every settle, release, renewal and sync already made is written. */
  override written(): Promise<void> {
    return this.link.written();
  }

  /** Stops booking and renewing; resolves once every settle, release and sync already made is written. */
  protected override finish(): Promise<void> {
    this.alarm.clear();
    return this.link.close();
  }

  /**
   * Works on admitting `head` and the waiters behind it: books them once this
   * tick's microtasks have run (a no-op while a booking is in progress). A
   * pause or a retry's hold keeps the head waiting here first.
   */
  protected serve(head: Waiter): void {
    const now = this.clock.now();
    if (this.paused() || head.notBefore > now) {
      this.headAlarm.set(Math.max(this.pausedUntil, head.notBefore));
      return;
    }
    if (this.batch || this.due) return;
    // Credit was booked: it admits whether the store answers now or not.
    const marks = head.reserve > 0 ? undefined : this.link.takeCredit(head.estimate);
    if (marks) {
      this.admitUnbooked(head, undefined, marks);
      return;
    }
    if (now < this.link.downUntil) {
      this.serveDuringOutage(head);
      return;
    }
    if (!this.gathered) {
      // Callers admitted in this tick queue their next requests in the microtasks that follow:
      // book once they have, so that they go in this call rather than the next.
      if (!this.gathering) afterMicrotasks(this.afterGathering);
      this.gathering = true;
      return;
    }
    // In the order the queue serves them; a retry holding its place (notBefore) stops the batch: those behind it
    // stay behind it.
    // A class with headroom books alone: its take is checked against the levels the store answers.
    // A batch takes no more of any bucket than its share (the head always goes); the store keeps processes that
    // want more within a batch of each other (see SharedStore.book), in the order Redis runs their calls.
    // Through a probed pause, one call at a time: its admission puts the next stretch in force.
    const alone = head.reserve > 0 || this.holds.probing;
    const room = this.link.batchShares();
    const costs: number[][] = [];
    // A busy process's whole queue per round trip, in a script that stays short.
    const waiters = this.queue.peek(BOOKING_BATCH.requests, (next) => {
      if (next !== head && (alone || next.notBefore > now || next.reserve > 0)) return false;
      const cost = this.link.costsOf(next.estimate);
      if (next !== head && cost.some((c, i) => c > room[i]!)) return false;
      cost.forEach((c, i) => (room[i]! -= c));
      costs.push(cost);
      return true;
    });
    // A run of admissions one after another, each request (a lone head's, or the first of a whole queue that came
    // back as one: callers in a loop) coming as soon as the last was admitted: book ahead for the next ones.
    const whole = waiters.length === this.queue.size;
    const slice = !alone && whole && this.hot(now) ? this.link.creditFor(costs) : undefined;
    const batch: Batch = { waiters, costs, queued: new Set(waiters), slice, generation: this.link.generation };
    this.batch = batch;
    this.link.book(slice ? [...costs, slice] : costs, this.queue.size > waiters.length, slice !== undefined).then(
      (booking) => this.answer(() => this.onBooked(batch, booking)),
      (error: unknown) => this.answer(() => this.onFailure(batch, error)),
    );
  }

  /**
   * Whether `waiter`'s booking is on its way: its deadline waits for the
   * answer, which admits it (a booking due now) or refuses it (one due too late).
   */
  protected override decidesLater(waiter: Waiter): boolean {
    return this.batch?.queued.has(waiter) === true;
  }

  /** Whether the store is failing now (its outage backoff running). */
  protected override get unavailable(): boolean {
    return this.clock.now() < this.link.downUntil;
  }

  /** `waiter` left the queue: give its booking back. */
  protected override left(waiter: Waiter): void {
    const due = this.due;
    if (due?.waiter !== waiter) {
      // One in a call on its way: the answer gives back what it took.
      this.batch?.queued.delete(waiter);
      return;
    }
    this.due = undefined;
    this.alarm.clear();
    this.link.giveBack(due.costs, due.lost);
  }

  /** Admission at once comes only from credit: anything else books through the store (see `serve`). */
  protected takeNow(estimate: Estimate, now: number, reserve: number): readonly number[] | undefined {
    // A request that nothing queued is ahead of: one more in a run of requests one after another, or the first.
    this.streak = now - this.lastAdmittedAt <= CREDIT_HOT_MS ? this.streak + 1 : 0;
    // A class with headroom books alone: its take is checked against the levels the store answers.
    return reserve > 0 ? undefined : this.link.takeCredit(estimate);
  }

  /**
   * A waiter of another lane (a more urgent class, a tenant served less) became
   * the head while one waits for its booking to come due: that booking goes
   * back, so the new head books next rather than behind it. (A retry at the
   * head of the due waiter's own lane waits out its hold; the booking stands.)
   */
  protected override headArrived(head: Waiter): void {
    const due = this.due;
    if (due && due.waiter.lane !== head.lane) {
      this.due = undefined;
      this.alarm.clear();
      this.link.giveBack(due.costs, due.lost);
    }
    super.headArrived(head);
  }

  protected blocker(): Blocker {
    return { dimension: "store", waitMs: Infinity };
  }

  private readonly afterGathering = (): void => {
    this.gathering = false;
    this.gathered = true;
    try {
      this.pump();
    } finally {
      this.gathered = false;
    }
  };

  private answer(handle: () => void): void {
    this.batch = undefined;
    handle();
    this.rearmDeadlines();
  }

  private onBooked(batch: Batch, answer: Booking): void {
    this.link.booked(answer);
    // Somebody waits on a bucket (this process, or another): credit must not admit ahead of them.
    if (answer.waitMs > 0) this.link.endCredit();
    const booking = batch.slice ? this.tookSlice(batch, batch.waiters.length, answer) : answer;
    if (batch.waiters[0]!.reserve > 0 && this.intoReserve(batch, booking)) return;
    const { waiters, costs, queued } = batch;
    for (let i = 0; i < booking.admitted; i++) {
      const lease = booking.leases[i];
      if (queued.delete(waiters[i]!)) this.admitBooked(waiters[i]!, booking.marks[i], lease);
      else this.cancel(costs[i]!, lease);
    }
    const now = this.clock.now();
    if (!booking.booked && booking.admitted < waiters.length && queued.size > 0) {
      // A concurrency slot was missing, or processes behind this one go first: look again when the store says
      // (a local release looks at once).
      this.alarm.set(now + Math.min(booking.waitMs, SLOT_POLL_MAX_MS));
      return;
    }
    const i = booking.admitted;
    const waiter = booking.booked ? waiters[i] : undefined;
    if (waiter === undefined || !queued.has(waiter)) {
      // Nothing of this call waits any more (its waiters may have left meanwhile): the queue's head books next.
      if (waiter) this.link.giveBack(costs[i]!, booking.lost ?? []);
      this.pump();
      return;
    }
    if (now + booking.waitMs > waiter.deadline) {
      this.link.giveBack(costs[i]!, booking.lost ?? []);
      this.fail(waiter, this.waitTimeout(booking.dimension ?? "store", booking.waitMs, waiter.maxWaitMs));
      return;
    }
    const lost = booking.lost ?? [];
    this.due = { waiter, costs: costs[i]!, lost, marks: booking.marks[i]!, at: now + booking.waitMs };
    this.awaitDue(this.due);
  }

  /**
   * The credit booked after a batch's `n` waiters: held when taken now, given back when booked for later
   * (left to refill when the budget changed meanwhile: it is aligned with the old dimensions). Returns the
   * answer as it concerns the waiters alone.
   */
  private tookSlice({ slice, generation }: Batch, n: number, booking: Booking): Booking {
    const current = generation === this.link.generation;
    if (booking.admitted > n) {
      if (current) this.link.granted(slice!, booking.marks[n]!, booking.levels);
      return { ...booking, admitted: n };
    }
    if (booking.booked && booking.admitted === n) {
      if (current) this.link.giveBack(slice!, booking.lost ?? []);
      return { ...booking, booked: false, waitMs: 0, dimension: undefined, lost: undefined };
    }
    return booking;
  }

  /**
   * Wakes when `due` is due, and meanwhile every {@link DUE_POLL_MS} to ask the store whether it is due
   * sooner (refunds and bookings given back free room, which the oldest bookings have first).
   */
  private awaitDue(due: Due): void {
    this.alarm.set(this.link.tellsDue ? Math.min(due.at, this.clock.now() + DUE_POLL_MS) : due.at);
  }

  /** Asks the store when `due` is due; an error leaves the time it said before. */
  private askDue(due: Due): void {
    const marks = due.marks.map((mark, i) => (due.costs[i]! > 0 ? mark : undefined));
    this.link.dueIn(marks).then(
      (waitMs) => {
        if (this.due !== due) return;
        this.link.recovered();
        // Sooner only: a level header sync set low for a moment (a reading that counted calls twice) must
        // not hold back a booking the store took.
        due.at = Math.min(due.at, this.clock.now() + waitMs);
        if (due.at <= this.clock.now()) this.onAlarm();
        else this.awaitDue(due);
      },
      (error: unknown) => {
        // A corrupt field the poll met is repaired by the store; isFinal tells of it (onWarning).
        this.link.isFinal(error);
        if (this.due === due) this.alarm.set(due.at);
      },
    );
  }

  /**
   * A waiter of a class with headroom, booked alone: when its take left a level
   * under the class's reserve (or was booked for later, which leaves one below
   * zero), it goes back, and the waiter books again once the levels the store
   * answered have refilled to the reserve. Returns whether it went back.
   */
  private intoReserve({ waiters, costs, queued }: Batch, booking: Booking): boolean {
    if (booking.admitted === 0 && !booking.booked) return false; // nothing taken: a slot was missing
    const waiter = waiters[0]!;
    const waitMs = this.link.msUntilReserve(booking.levels, waiter.reserve);
    if (waitMs === 0) return false;
    this.cancel(costs[0]!, booking.leases[0], booking.booked ? (booking.lost ?? []) : undefined);
    if (queued.has(waiter)) this.alarm.set(this.clock.now() + waitMs);
    else this.pump();
    return true;
  }

  private onAlarm(): void {
    const due = this.due;
    if (!due) {
      this.pump();
      return;
    }
    if (this.clock.now() < due.at) {
      this.askDue(due);
      return;
    }
    if (!this.link.leased) {
      this.admitDue(due, undefined);
      return;
    }
    this.link.lease().then(
      ({ lease, retryMs }) => {
        if (this.due !== due) {
          if (lease !== undefined) this.link.returnLease(lease);
          return;
        }
        this.link.recovered();
        if (lease !== undefined) this.admitDue(due, lease);
        else this.alarm.set(this.clock.now() + Math.min(retryMs, SLOT_POLL_MAX_MS));
      },
      (error: unknown) => {
        if (this.link.isFinal(error)) {
          // Leaving the queue gives its booking back.
          if (this.due === due) this.fail(due.waiter, error);
          return;
        }
        // The booking stands: it keeps waiting for a lease.
        this.link.markDown(error);
        if (this.due === due) this.alarm.set(this.link.downUntil);
      },
    );
  }

  private admitDue(due: Due, lease: string | undefined): void {
    this.due = undefined;
    this.admitBooked(due.waiter, due.marks, lease);
    this.pump();
  }

  /**
   * Admitted with no round trip (from credit, or by the failure policy): the
   * next head is served in a microtask, not inline (that would recurse).
   */
  private admitUnbooked(head: Waiter, lease: string | undefined, marks?: readonly number[]): void {
    this.admit(head, this.clock.now(), marks, lease);
    queueMicrotask(() => this.pump());
  }

  /** Whether a head served at `now` comes in a run of requests one after another: its next is likely as soon. */
  private hot(now: number): boolean {
    return now - this.lastAdmittedAt <= CREDIT_HOT_MS && this.streak >= CREDIT_STREAK;
  }

  private admitBooked(waiter: Waiter, marks: readonly number[] | undefined, lease: string | undefined): void {
    if (lease !== undefined) this.link.holdLease(lease);
    this.admit(waiter, this.clock.now(), marks, lease);
  }

  /** What a booking took for a waiter that left while it was on its way goes back (see `StoreLink.giveBack`). */
  private cancel(costs: readonly number[], lease: string | undefined, lost?: readonly number[]): void {
    this.link.giveBack(costs, lost);
    if (lease !== undefined) this.link.returnLease(lease);
  }

  private serveDuringOutage(head: Waiter): void {
    if (this.policy === "fail-closed") {
      this.alarm.set(this.link.downUntil);
      return;
    }
    if (this.policy === "fail-open") {
      this.admitUnbooked(head, undefined);
      return;
    }
    const fallback = this.fallback!;
    if (fallback.take(head.estimate, this.clock.now())) {
      this.admitUnbooked(head, this.link.leased ? LOCAL_LEASE : undefined);
      return;
    }
    this.alarm.set(Math.min(this.link.downUntil, this.clock.now() + fallback.blocker(head.estimate).waitMs));
  }

  /**
   * A booking call failed. When retrying cannot cure it, the waiters it
   * carried reject with its error, whatever the failure policy. Otherwise the
   * store counts as down until a backoff passes; nothing of the batch is known
   * taken, so those of its waiters still queued are served, in order, as the
   * failure policy says.
   */
  private onFailure({ queued }: Batch, error: unknown): void {
    if (this.link.isFinal(error)) for (const waiter of [...queued]) this.fail(waiter, error);
    else this.link.markDown(error);
    this.pump();
  }
}
