import type { Clock } from "../core/clock.js";
import { type Dimension } from "../core/budget.js";
import { costOf } from "../core/amounts.js";
import type { Meter } from "../core/reservation.js";
import { MemoryStore } from "../buckets/local-buckets.js";
import {
  checkFailurePolicy,
  type Booking,
  type SharedLayout,
  type SharedStore,
  type StoreFailurePolicy,
} from "../store/shared-store.js";
import type { Blocker, DimensionSnapshot, Store } from "../buckets/types.js";
import { Alarm } from "./alarm.js";
import type { Waiter } from "./waiter.js";

/** What shared admission needs from its limiter. */
export interface SharedHost {
  /** A waiter at the head of the queue is admitted (its booking came due): dequeue and resolve it. */
  admit(waiter: Waiter, marks: readonly number[] | undefined, lease: string | undefined): void;
  /** The head's booking falls after its deadline: reject it now. */
  late(waiter: Waiter, dimension: string, waitMs: number): void;
  /**
   * The store refused for good (see `SharedStore.isFinal`) a call that `waiter` waits on: reject it with `error` now.
   */
  fail(waiter: Waiter, error: unknown): void;
  /** Look at the head again (after a missing slot, or to probe a store that was down). */
  pump(): void;
  /** A booking was answered: deadlines held back while it was on its way may now be judged. */
  answered(): void;
}

/** The lease of a call admitted by the local fallback while the store was down. */
const LOCAL_LEASE = "local";
/** Backoff while the store is down: the first retry, and the longest gap between probes. */
const OUTAGE_FIRST_MS = 50;
const OUTAGE_MAX_MS = 2_000;
/** A missing concurrency slot is looked for again at least this often (a local release looks at once). */
const SLOT_POLL_MAX_MS = 1_000;

/**
 * Most waiters one booking call takes from the front of the queue: a busy
 * process's whole queue per round trip, in a script that stays short.
 */
const MAX_BATCH = 128;

/** A booking call on its way, for the queue's head and the waiters right behind it, in order. */
interface Batch {
  readonly waiters: readonly Waiter[];
  /** Per waiter, its cost on each dimension. */
  readonly costs: readonly (readonly number[])[];
  /** The waiters still queued; what the call takes for one that left is given back. */
  readonly queued: Set<Waiter>;
}

/** The head's booking for later, waiting to come due (then for a concurrency lease). */
interface Due {
  readonly waiter: Waiter;
  readonly costs: readonly number[];
  readonly marks: readonly number[];
}

/**
 * Admission through a {@link SharedStore}: the head of the local queue and the
 * waiters behind it book their costs in the store in one round trip. Those that
 * fit are admitted at once, in order; the first that does not is booked for
 * later and, alone, waits until it is due, takes a concurrency lease if one is
 * needed, and is admitted; the waiters behind it book after it. So a process
 * holds at most one booking for later, and processes are served in booking
 * order. Settles, releases, header sync and pauses write through; the levels
 * it reports are those of the last round trip. While the store is
 * unreachable, its failure policy decides.
 *
 * It also stands in for the limiter's local {@link Store}, so the limiter's
 * bookkeeping is the same in both modes.
 */
export class SharedAdmission implements Store {
  private layout: SharedLayout;
  private dimensions: readonly Dimension[] = [];
  /** Levels as of the last round trip. */
  private readonly mirror = new Map<string, number>();
  /** At most one of these at a time: a booking call on its way, or its booking for later. */
  private batch: Batch | undefined;
  private due: Due | undefined;
  /** Whether a booking call waits for this tick's callers to queue up; then whether they have. */
  private gathering = false;
  private gathered = false;
  private readonly alarm: Alarm;
  private readonly leases = new Set<string>();
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private failures = 0;
  private downUntil = 0;
  private readonly policy: StoreFailurePolicy;
  private readonly fallback: MemoryStore | undefined;
  private pending: number[] | undefined;
  /** Writes sent and not yet answered. */
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly store: SharedStore,
    private readonly clock: Clock,
    private readonly initialFraction: number,
    arrivalDelayMs: number,
    private readonly warn: (warning: Error) => void,
    private readonly host: SharedHost,
  ) {
    this.policy = store.onError ?? "fail-closed";
    const local = checkFailurePolicy(this.policy);
    this.fallback = local === undefined ? undefined : new MemoryStore(clock, initialFraction, arrivalDelayMs);
    this.layout = { dimensions: [], concurrency: undefined, initialFraction };
    this.alarm = new Alarm(clock, () => this.onAlarm());
  }

  configure(dimensions: readonly Dimension[], concurrency: number | undefined): void {
    this.flush(); // pending deltas are aligned with the old dimensions
    this.dimensions = dimensions;
    this.layout = {
      dimensions: dimensions.map(({ name, limit, windowMs, capacity }) => ({ name, limit, windowMs, capacity })),
      concurrency,
      initialFraction: this.initialFraction,
    };
    for (const name of [...this.mirror.keys()]) if (!dimensions.some((d) => d.name === name)) this.mirror.delete(name);
    for (const d of dimensions)
      if (!this.mirror.has(d.name)) this.mirror.set(d.name, d.capacity * this.initialFraction);
    if (this.fallback && typeof this.policy === "object") {
      const f = this.policy.local;
      this.fallback.configure(
        dimensions.map((d) => ({ ...d, limit: d.limit * f, capacity: d.capacity * f })),
        concurrency === undefined ? undefined : Math.max(1, Math.floor(concurrency * f)),
      );
    }
  }

  /**
   * Works on admitting `head` and the waiters behind it: books them once this
   * tick's microtasks have run (a no-op while a booking is in progress).
   */
  serve(head: Waiter): void {
    if (this.batch || this.due) return;
    const now = this.clock.now();
    if (now < this.downUntil) {
      this.serveDuringOutage(head);
      return;
    }
    if (!this.gathered) {
      // Callers admitted in this tick queue their next requests in the microtasks that follow:
      // book once they have, so that they go in this call rather than the next.
      if (!this.gathering) process.nextTick(this.afterGathering);
      this.gathering = true;
      return;
    }
    const waiters = [head];
    // A retry holding its place (notBefore) stops the batch: those behind it stay behind it.
    for (let next = head.next; next && waiters.length < MAX_BATCH && next.notBefore <= now; next = next.next)
      waiters.push(next);
    const costs = waiters.map((waiter) => this.dimensions.map((d) => costOf(d.unit, waiter.estimate)));
    const batch: Batch = { waiters, costs, queued: new Set(waiters) };
    this.batch = batch;
    // Settles made so far go first: the booking must see their refunds and extra charges.
    this.flush();
    this.store.book(this.layout, costs).then(
      (booking) => this.answer(() => this.onBooked(batch, booking)),
      (error: unknown) => this.answer(() => this.onFailure(batch, error)),
    );
  }

  private readonly afterGathering = (): void => {
    this.gathering = false;
    this.gathered = true;
    try {
      this.host.pump();
    } finally {
      this.gathered = false;
    }
  };

  /**
   * Whether `waiter`'s booking is on its way: its deadline waits for the
   * answer, which admits it (a booking due now) or refuses it (one due too late).
   */
  awaitingAnswer(waiter: Waiter): boolean {
    return this.batch?.queued.has(waiter) === true;
  }

  private answer(handle: () => void): void {
    this.batch = undefined;
    handle();
    this.host.answered();
  }

  /** `waiter` left the queue: give its booking back. */
  abandon(waiter: Waiter): void {
    const due = this.due;
    if (due?.waiter !== waiter) {
      // One in a call on its way: the answer gives back what it took.
      this.batch?.queued.delete(waiter);
      return;
    }
    this.due = undefined;
    this.alarm.clear();
    this.giveBack(due.costs);
  }

  /** A reservation ended: its lease goes back. */
  releaseSlot(lease: string | undefined): void {
    if (lease === undefined) return;
    if (lease === LOCAL_LEASE) {
      this.fallback?.releaseSlot();
      return;
    }
    this.leases.delete(lease);
    if (this.leases.size === 0) this.stopRenewing();
    this.write(this.store.release(lease));
  }

  /** No admission with a positive cost anywhere for `ms` from now, in every process. */
  pauseAll(ms: number): void {
    this.write(this.store.pause(this.layout, undefined, ms));
  }

  /** Header sync: lowers dimension `name` to `remaining` less what every process booked after `mark`. */
  lowerFrom(meter: Meter, remaining: number, mark: number | undefined): void {
    const index = this.indexOf(meter.name);
    if (index < 0) return;
    this.mirror.set(meter.name, Math.min(this.mirror.get(meter.name) ?? remaining, remaining));
    this.write(this.store.lower(this.layout, index, remaining, mark));
  }

  /** Stops booking and renewing; resolves once every settle, release and sync already made is written. */
  async close(): Promise<void> {
    this.alarm.clear();
    this.stopRenewing();
    const due = this.due;
    this.due = undefined;
    if (due) this.giveBack(due.costs);
    // Settles wait a microtask to go as one write: send them now.
    this.flush();
    await Promise.all(this.writes);
  }

  /** Whether the store is failing now (its outage backoff running). */
  get unavailable(): boolean {
    return this.clock.now() < this.downUntil;
  }

  // The Store side: the limiter's bookkeeping, written through.

  take(): boolean {
    return false; // admission goes through `serve`
  }

  blocker(): Blocker {
    return { dimension: "store", waitMs: Infinity };
  }

  give(name: string, amount: number): void {
    this.giveAt(this.indexOf(name), amount);
  }

  private giveAt(index: number, amount: number): void {
    if (index < 0) return;
    const { name, capacity } = this.dimensions[index]!;
    this.mirror.set(name, Math.min(capacity, (this.mirror.get(name) ?? 0) + amount));
    // A settle moves several dimensions at once: one round trip for all of them.
    if (!this.pending) {
      this.pending = this.dimensions.map(() => 0);
      queueMicrotask(() => this.flush());
    }
    this.pending[index]! += amount;
  }

  level(name: string): number | undefined {
    return this.mirror.get(name);
  }

  lower(name: string, level: number): void {
    const index = this.indexOf(name);
    if (index < 0) return;
    this.mirror.set(name, Math.min(this.mirror.get(name) ?? level, level));
    this.write(this.store.lower(this.layout, index, level, undefined));
  }

  resync(name: string, level: number): void {
    // The shared level has no own count to return to: a write that only lowers.
    this.lower(name, level);
  }

  setShare(): void {
    // Every replica draws on the same shared bucket: there is no other client's share to learn.
  }

  alignWindow(): void {
    // The shared buckets stay continuous: their Lua scripts know no windows.
  }

  endWindows(): void {
    // Never windowed (see alignWindow).
  }

  pause(name: string, until: number): void {
    const index = this.indexOf(name);
    if (index < 0) return;
    this.write(this.store.pause(this.layout, [index], until - this.clock.now()));
  }

  slotsInUse(): number {
    return this.leases.size;
  }

  snapshot(): Record<string, DimensionSnapshot> {
    const view: Record<string, DimensionSnapshot> = {};
    for (const { name, limit, windowMs, capacity } of this.dimensions) {
      view[name] = { limit, windowMs, capacity, available: this.mirror.get(name) ?? capacity };
    }
    return view;
  }

  private onBooked({ waiters, costs, queued }: Batch, booking: Booking): void {
    this.recovered();
    booking.levels.forEach((level, i) => {
      const name = this.layout.dimensions[i]?.name;
      if (name !== undefined) this.mirror.set(name, level);
    });
    for (let i = 0; i < booking.admitted; i++) {
      const lease = booking.leases[i];
      if (queued.delete(waiters[i]!)) this.admit(waiters[i]!, booking.marks[i], lease);
      else this.cancel(costs[i]!, lease);
    }
    const now = this.clock.now();
    if (!booking.booked && booking.admitted < waiters.length && queued.size > 0) {
      // A concurrency slot was missing: look again when one may be free (a local release looks at once).
      this.alarm.set(now + Math.min(booking.waitMs, SLOT_POLL_MAX_MS));
      return;
    }
    const i = booking.admitted;
    const waiter = booking.booked ? waiters[i] : undefined;
    if (waiter === undefined || !queued.has(waiter)) {
      // Nothing of this call waits any more (its waiters may have left meanwhile): the queue's head books next.
      if (waiter) this.giveBack(costs[i]!);
      this.host.pump();
      return;
    }
    if (now + booking.waitMs > waiter.deadline) {
      this.giveBack(costs[i]!);
      this.host.late(waiter, booking.dimension ?? "store", booking.waitMs);
      return;
    }
    this.due = { waiter, costs: costs[i]!, marks: booking.marks[i]! };
    this.alarm.set(now + booking.waitMs);
  }

  private onAlarm(): void {
    const due = this.due;
    if (!due) {
      this.host.pump();
      return;
    }
    if (this.layout.concurrency === undefined) {
      this.admitDue(due, undefined);
      return;
    }
    this.store.lease(this.layout).then(
      ({ lease, retryMs }) => {
        if (this.due !== due) {
          if (lease !== undefined) this.write(this.store.release(lease));
          return;
        }
        this.recovered();
        if (lease !== undefined) this.admitDue(due, lease);
        else this.alarm.set(this.clock.now() + Math.min(retryMs, SLOT_POLL_MAX_MS));
      },
      (error: unknown) => {
        if (this.isFinal(error)) {
          // Leaving the queue gives its booking back.
          if (this.due === due) this.host.fail(due.waiter, error);
          return;
        }
        // The booking stands: it keeps waiting for a lease.
        this.markDown(error);
        if (this.due === due) this.alarm.set(this.downUntil);
      },
    );
  }

  private admitDue(due: Due, lease: string | undefined): void {
    this.due = undefined;
    this.admit(due.waiter, due.marks, lease);
    this.host.pump();
  }

  /**
   * Admitted by the failure policy, with no round trip: the next head is served in a microtask, not inline (that would
   * recurse).
   */
  private admitUnbooked(head: Waiter, lease: string | undefined): void {
    this.host.admit(head, undefined, lease);
    queueMicrotask(() => this.host.pump());
  }

  private admit(waiter: Waiter, marks: readonly number[] | undefined, lease: string | undefined): void {
    if (lease !== undefined) {
      this.leases.add(lease);
      this.startRenewing();
    }
    this.host.admit(waiter, marks, lease);
  }

  /** What a booking took for a waiter that left while it was on its way goes back. */
  private cancel(costs: readonly number[], lease: string | undefined): void {
    this.giveBack(costs);
    if (lease !== undefined) this.write(this.store.release(lease));
  }

  private serveDuringOutage(head: Waiter): void {
    if (this.policy === "fail-closed") {
      this.alarm.set(this.downUntil);
      return;
    }
    if (this.policy === "fail-open") {
      this.admitUnbooked(head, undefined);
      return;
    }
    const fallback = this.fallback!;
    if (fallback.take(head.estimate, this.clock.now())) {
      this.admitUnbooked(head, this.layout.concurrency === undefined ? undefined : LOCAL_LEASE);
      return;
    }
    this.alarm.set(Math.min(this.downUntil, this.clock.now() + fallback.blocker(head.estimate).waitMs));
  }

  /**
   * A booking call failed. When retrying cannot cure it, the waiters it
   * carried reject with its error, whatever the failure policy. Otherwise the
   * store counts as down until a backoff passes; nothing of the batch is known
   * taken, so those of its waiters still queued are served, in order, as the
   * failure policy says.
   */
  private onFailure({ queued }: Batch, error: unknown): void {
    if (this.isFinal(error)) for (const waiter of [...queued]) this.host.fail(waiter, error);
    else this.markDown(error);
    this.host.pump();
  }

  /** Sends a write and keeps it until answered, so that `close()` can wait for it. */
  private write(sent: Promise<unknown>): void {
    const tracked: Promise<void> = sent.then(
      () => void this.writes.delete(tracked),
      (error: unknown) => {
        this.writes.delete(tracked);
        this.onWriteFailure(error);
      },
    );
    this.writes.add(tracked);
  }

  private onWriteFailure(error: unknown): void {
    // A refused write is a bug to see, not an outage to wait out.
    if (this.isFinal(error)) this.warn(asError(error));
    // Lost writes heal: leases expire and header sync corrects levels.
    else this.markDown(error);
  }

  private isFinal(error: unknown): boolean {
    return this.store.isFinal?.(error) === true;
  }

  private markDown(error: unknown): void {
    if (this.failures === 0) this.warn(asError(error));
    this.failures++;
    this.downUntil = this.clock.now() + Math.min(OUTAGE_MAX_MS, OUTAGE_FIRST_MS * 2 ** (this.failures - 1));
  }

  private recovered(): void {
    this.failures = 0;
    this.downUntil = 0;
  }

  private giveBack(costs: readonly number[]): void {
    costs.forEach((cost, i) => {
      const name = this.layout.dimensions[i]?.name;
      if (name !== undefined && cost > 0) this.giveAt(this.indexOf(name), cost);
    });
  }

  private flush(): void {
    const deltas = this.pending;
    this.pending = undefined;
    if (!deltas || deltas.every((d) => d === 0)) return;
    this.write(this.store.adjust(this.layout, deltas));
  }

  private indexOf(name: string): number {
    return this.dimensions.findIndex((d) => d.name === name);
  }

  private startRenewing(): void {
    if (this.renewTimer !== undefined) return;
    this.renewTimer = setInterval(
      () => {
        this.write(this.store.renew([...this.leases]));
      },
      Math.max(1, this.store.leaseMs / 3),
    );
    // Renewal serves calls in flight; those keep the process alive themselves.
    this.renewTimer.unref?.();
  }

  private stopRenewing(): void {
    if (this.renewTimer !== undefined) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
