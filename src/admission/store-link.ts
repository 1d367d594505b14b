import type { DimensionSnapshot } from "../buckets/types.js";
import { costOf } from "../core/amounts.js";
import type { Dimension } from "../core/budget.js";
import type { Clock } from "../core/clock.js";
import type { Estimate } from "../core/limits.js";
import type { Meter } from "../core/meter.js";
import {
  BOOKING_BATCH,
  type Booking,
  type SharedLayout,
  type SharedReading,
  type SharedStore,
} from "../store/shared-store.js";
import { ALARM_LATENESS_MS } from "./alarm.js";
import { Credit, CREDIT_MS } from "./credit.js";
import { DrawsOnTheirWay } from "./draws-on-their-way.js";

/** Backoff while the store is down: the first retry, and the longest gap between probes. */
const OUTAGE_FIRST_MS = 50;
const OUTAGE_MAX_MS = 2_000;

/**
 * This process's side of a {@link SharedStore}: the layout sent with every
 * call, the levels as of the last round trip, the writes that go through
 * (settles batched per microtask, releases, header sync, pauses) and the
 * concurrency leases held, renewed while held, and the {@link Credit} booked
 * ahead. It also tells whether the store is down: after a failure, for a
 * backoff that doubles up to 2 s.
 */
export class StoreLink {
  private layout: SharedLayout;
  /** The layout of a booking with credit, sent as one object so that a store can keep what it makes of it. */
  private creditLayout: SharedLayout;
  private dimensions: readonly Dimension[] = [];
  /** Counts `configure` calls: an answer to a call sent before the last one is aligned with old dimensions. */
  generation = 0;
  /** Levels as of the last round trip. */
  private readonly mirror = new Map<string, number>();
  /** Deltas of this tick not yet written, and what of them gives back draws booked for later. */
  private pending: { deltas: number[]; unbooked: number[] } | undefined;

  /** Writes sent and not yet answered. */
  private readonly writes = new Set<Promise<void>>();
  private readonly leases = new Set<string>();
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private failures = 0;
  /** Monotonic time until which the store counts as down. */
  downUntil = 0;
  /** This process's draws that may not have reached the provider yet: header sync discounts them. */
  readonly onTheirWay: DrawsOnTheirWay;
  /** Room booked ahead for a caller admitting one request after another; header sync discounts it too. */
  private readonly credit: Credit;

  constructor(
    readonly store: SharedStore,
    private readonly clock: Clock,
    private readonly initialFraction: number,
    private readonly arrivalDelayMs: number,
    private readonly warn: (warning: Error) => void,
  ) {
    this.layout = this.creditLayout = {
      dimensions: [],
      concurrency: undefined,
      initialFraction,
      arrivalDelayMs: this.sentDelayMs,
    };
    this.onTheirWay = new DrawsOnTheirWay(clock, arrivalDelayMs);
    this.credit = new Credit((left) => this.giveBack(left));
  }

  /** Sends later calls with these dimensions and concurrency limit. */
  configure(dimensions: readonly Dimension[], concurrency: number | undefined): void {
    // Credit and pending deltas are aligned with the old dimensions.
    this.credit.end();
    this.flush();
    this.generation++;
    this.dimensions = dimensions;
    this.layout = {
      dimensions: dimensions.map(({ name, limit, windowMs, capacity }) => ({ name, limit, windowMs, capacity })),
      concurrency,
      initialFraction: this.initialFraction,
      arrivalDelayMs: this.sentDelayMs,
    };
    this.creditLayout = { ...this.layout, arrivalDelayMs: this.sentDelayMs + CREDIT_MS };
    this.onTheirWay.configure(dimensions.map((d) => d.name));
    for (const name of [...this.mirror.keys()]) if (!dimensions.some((d) => d.name === name)) this.mirror.delete(name);
    for (const d of dimensions) {
      if (!this.mirror.has(d.name)) this.mirror.set(d.name, d.capacity * this.initialFraction);
    }
  }

  /**
   * The arrival delay the store holds refill for: a booking for later is admitted when an alarm fires, which
   * may be up to {@link ALARM_LATENESS_MS} after the store's due time, and its call reaches the provider as late.
   */
  private get sentDelayMs(): number {
    return this.arrivalDelayMs + ALARM_LATENESS_MS;
  }

  /** Whether concurrency is limited: a booking that comes due must take a lease. */
  get leased(): boolean {
    return this.layout.concurrency !== undefined;
  }

  /** What `estimate` costs on each dimension, in the layout's order. */
  costsOf(estimate: Estimate): number[] {
    return this.dimensions.map((d) => costOf(d.unit, estimate));
  }

  /**
   * Per dimension, in the layout's order, the most one booking call takes: a share of its capacity
   * ({@link BOOKING_BATCH}). A bucket that does not bind still admits a whole queue per call; one that
   * binds is shared out a batch at a time between the processes that want it.
   */
  batchShares(): number[] {
    return this.dimensions.map((d) => d.capacity * BOOKING_BATCH.share);
  }

  /**
   * Books `requests` (see {@link SharedStore.book}; `more`: others are queued behind them), after the
   * settles made so far (it must see their refunds). `credit`: the last is credit (see {@link creditFor}),
   * whose calls reach the provider up to {@link CREDIT_MS} later.
   */
  book(requests: readonly (readonly number[])[], more: boolean, credit = false): Promise<Booking> {
    this.flush();
    return this.store.book(credit ? this.creditLayout : this.layout, requests, more);
  }

  /**
   * What to book ahead, as credit, after a batch (a lone head, or a whole queue) of requests costing
   * `costs` each (`undefined`: nothing); never with concurrency limited, as credit holds no leases.
   */
  creditFor(costs: readonly (readonly number[])[]): number[] | undefined {
    if (this.leased) return undefined;
    const levels = this.dimensions.map((d) => this.mirror.get(d.name) ?? 0);
    const total = levels.map((_, i) => costs.reduce((sum, c) => sum + c[i]!, 0));
    return this.credit.want(total, costs.length, levels, this.capacities());
  }

  /**
   * A booking took `slice` ahead, with `marks`, leaving `levels`: held as credit, or given back at once when
   * a level fell under the floor (other processes drew meanwhile).
   */
  granted(slice: readonly number[], marks: readonly number[], levels: readonly number[]): void {
    if (Credit.fits(slice, levels, this.capacities())) this.credit.add(slice, marks);
    else this.giveBack(slice);
  }

  /** Takes the costs of `estimate` from the credit when it covers them: the marks to admit with; else `undefined`. */
  takeCredit(estimate: Estimate): readonly number[] | undefined {
    return this.credit.held ? this.credit.take(this.costsOf(estimate)) : undefined;
  }

  /** Gives the credit back now, in writes sent before any that follow. */
  endCredit(): void {
    this.credit.end();
    this.flush();
  }

  /** Whether the store tells when a booking for later is due, now (see {@link SharedStore.dueIn}). */
  get tellsDue(): boolean {
    return this.store.dueIn !== undefined;
  }

  /** Ms until a booking for later with these marks is due now, after the settles made so far. */
  dueIn(marks: readonly (number | undefined)[]): Promise<number> {
    this.flush();
    return this.store.dueIn!(this.layout, marks);
  }

  /** A booking's answer: the store is up, and its levels are the latest. */
  booked(booking: Booking): void {
    this.recovered();
    booking.levels.forEach((level, i) => {
      const name = this.layout.dimensions[i]?.name;
      if (name !== undefined) this.mirror.set(name, level);
    });
  }

  /**
   * Ms until every dimension, from `levels` (a booking's answer, in the
   * layout's order), refills to the fraction `reserve` of its capacity; 0 when all are there.
   */
  msUntilReserve(levels: readonly number[], reserve: number): number {
    let waitMs = 0;
    this.dimensions.forEach((d, i) => {
      const missing = reserve * d.capacity - (levels[i] ?? 0);
      // Float slack, as the booking script allows: refill can land a hair under a level reached exactly.
      if (missing > 1e-9 * d.capacity) waitMs = Math.max(waitMs, (missing * d.windowMs) / d.limit);
    });
    return waitMs;
  }

  /** Takes a concurrency lease (see {@link SharedStore.lease}). */
  lease(): Promise<{ readonly lease: string | undefined; readonly retryMs: number }> {
    return this.store.lease(this.layout);
  }

  /** A lease taken: held, and renewed, until {@link releaseLease}. */
  holdLease(lease: string): void {
    this.leases.add(lease);
    if (this.renewTimer !== undefined) return;
    this.renewTimer = setInterval(
      () => this.write(this.store.renew([...this.leases])),
      Math.max(1, this.store.leaseMs / 3),
    );
    // Renewal serves calls in flight; those keep the process alive themselves.
    this.renewTimer.unref?.();
  }

  /** A held lease goes back. */
  releaseLease(lease: string): void {
    this.leases.delete(lease);
    if (this.leases.size === 0) this.stopRenewing();
    this.returnLease(lease);
  }

  /** A lease this process never held (its waiter left while it was on its way) goes back. */
  returnLease(lease: string): void {
    this.write(this.store.release(lease));
  }

  /** Leases held now. */
  get slotsInUse(): number {
    return this.leases.size;
  }

  /** Adds `amount` to dimension `name` (a refund; negative: an extra charge); settles of one tick go as one write. */
  give(name: string, amount: number): void {
    const index = this.indexOf(name);
    if (index >= 0) this.add(index, amount, 0);
  }

  /**
   * Gives back what a booking took (costs in the layout's order). `lost`, for a booking for later: the refill
   * it took besides ({@link Booking.lost}; `[]` for none), which goes back too; the store then no longer
   * expects its draw to reach the provider.
   */
  giveBack(costs: readonly number[], lost?: readonly number[]): void {
    costs.forEach((cost, i) => {
      if (i < this.dimensions.length && cost > 0) this.add(i, cost + (lost?.[i] ?? 0), lost ? cost : 0);
    });
  }

  /** Header sync of the dimension of `meter`, in every process (see {@link SharedStore.resync}). */
  resync(meter: Meter, reading: SharedReading): void {
    const index = this.indexOf(meter.name);
    if (index < 0) return;
    // Headers stamped at completion count the settles made before them: those go first.
    this.flush();
    // Nor have they seen this process's draws still on their way (see LocalLevels for the in-process case), nor
    // its credit, which was booked (so no mark discounts it) but not drawn.
    const held = this.credit.heldOn(index);
    const remaining = Math.max(0, reading.remaining - this.onTheirWay.total(meter.name) - held);
    this.write(this.store.resync(this.layout, index, { ...reading, remaining, brought: reading.brought - held }));
  }

  /** Lowers dimension `name` to at most `level`, in every process. */
  lower(name: string, level: number): void {
    const index = this.indexOf(name);
    if (index < 0) return;
    // Credit would admit past the lowered level: it goes back first.
    this.credit.end();
    this.mirror.set(name, Math.min(this.mirror.get(name) ?? level, level));
    this.flush();
    this.write(this.store.lower(this.layout, index, level, undefined));
  }

  /** No admission with a positive cost on `name` before monotonic time `until`, in every process. */
  pause(name: string, until: number): void {
    const index = this.indexOf(name);
    if (index < 0) return;
    // Credit would admit through the pause: it goes back first.
    this.endCredit();
    this.write(this.store.pause(this.layout, [index], until - this.clock.now()));
  }

  /** No admission with a positive cost anywhere for `ms` from now, in every process. */
  pauseAll(ms: number): void {
    this.endCredit();
    this.write(this.store.pause(this.layout, undefined, ms));
  }

  /** Ends the pauses of `names` (`undefined`: of every dimension), in every process. */
  unpause(names: readonly string[] | undefined): void {
    const indices = names?.map((name) => this.indexOf(name)).filter((i) => i >= 0);
    if (indices?.length === 0 || !this.store.unpause) return;
    this.write(this.store.unpause(this.layout, indices));
  }

  /** The levels as of the last round trip, with the credit this process holds on top (it may admit that too). */
  snapshot(): Record<string, DimensionSnapshot> {
    const view: Record<string, DimensionSnapshot> = {};
    this.dimensions.forEach(({ name, limit, windowMs, capacity }, i) => {
      const available = (this.mirror.get(name) ?? capacity) + this.credit.heldOn(i);
      view[name] = { limit, windowMs, capacity, available };
    });
    return view;
  }

  /**
   * Whether retrying cannot cure `error` (see {@link SharedStore.isFinal}); one that tells of state the
   * store found corrupt and repaired is warned of too (see {@link SharedStore.repaired}).
   */
  isFinal(error: unknown): boolean {
    if (this.store.isFinal?.(error) !== true) return false;
    if (this.store.repaired?.(error) === true) this.warn(asError(error));
    return true;
  }

  /** A call failed in a way retrying may cure: the store counts as down for the next backoff. */
  markDown(error: unknown): void {
    if (this.failures === 0) this.warn(asError(error));
    this.failures++;
    this.downUntil = this.clock.now() + Math.min(OUTAGE_MAX_MS, OUTAGE_FIRST_MS * 2 ** (this.failures - 1));
  }

  /** A call succeeded: the store is up. */
  recovered(): void {
    this.failures = 0;
    this.downUntil = 0;
  }

  /** Resolves once every write made so far is answered; settles batched for the next microtask go now. */
  async written(): Promise<void> {
    this.flush();
    await Promise.all(this.writes);
  }

  /** Stops renewing; resolves once every write made so far is answered. */
  async close(): Promise<void> {
    this.stopRenewing();
    // Settles wait a microtask to go as one write: send them now, with the credit left.
    this.endCredit();
    await Promise.all(this.writes);
  }

  /** Sends a write and keeps it until answered, so that `close()` can wait for it. */
  private write(sent: Promise<unknown>): void {
    const tracked: Promise<void> = sent.then(
      () => void this.writes.delete(tracked),
      (error: unknown) => {
        this.writes.delete(tracked);
        // A refused write is a bug to see, not an outage to wait out (isFinal warns of a repair itself).
        if (this.isFinal(error)) {
          if (this.store.repaired?.(error) !== true) this.warn(asError(error));
        }
        // Lost writes heal: leases expire and header sync corrects levels.
        else this.markDown(error);
      },
    );
    this.writes.add(tracked);
  }

  /** Adds `amount` to dimension `index`, `unbooked` of it giving back a draw booked for later. */
  private add(index: number, amount: number, unbooked: number): void {
    const { name, capacity } = this.dimensions[index]!;
    this.mirror.set(name, Math.min(capacity, (this.mirror.get(name) ?? 0) + amount));
    // A settle moves several dimensions at once: one round trip for all of them.
    if (!this.pending) {
      this.pending = { deltas: this.dimensions.map(() => 0), unbooked: this.dimensions.map(() => 0) };
      queueMicrotask(() => this.flush());
    }
    this.pending.deltas[index]! += amount;
    this.pending.unbooked[index]! += unbooked;
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending || pending.deltas.every((d) => d === 0)) return;
    const { deltas, unbooked } = pending;
    this.write(this.store.adjust(this.layout, deltas, unbooked.some((u) => u > 0) ? unbooked : undefined));
  }

  private capacities(): number[] {
    return this.dimensions.map((d) => d.capacity);
  }

  private indexOf(name: string): number {
    return this.dimensions.findIndex((d) => d.name === name);
  }

  private stopRenewing(): void {
    if (this.renewTimer !== undefined) clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
