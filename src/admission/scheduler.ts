/**
 * The order in which waiters are served: priority classes, strict between
 * them; within a class, one FIFO lane per tenant, the lanes shared by cost with
 * start-time fair queueing (SFQ).
 *
 * Each lane carries a tag: the virtual time at which its head starts, in ms of
 * refill of the dimension it loads most (its cost). The class's head is the head
 * of the lane with the smallest tag (ties: the lane that took its tag first);
 * serving it sets the class's virtual time to that tag and advances the lane's
 * tag by its cost. A lane that becomes busy starts at the class's virtual time,
 * or at its own tag if that is later (what it was served lately still counts).
 *
 * So a waiter at the head of its lane is overtaken only by the heads of lanes
 * with a smaller tag: tenants served less than its own since the class was last
 * idle, each by at most what its own tenant's previous call cost, plus one call.
 * A tenant new to the busy period starts level with the least served: behind
 * at most one call of each lane level with it, and never overtaken by a tenant
 * that comes after it. Within a lane, FIFO; between classes, strict.
 *
 * A lane that empties is kept only while its tag is ahead of the class's
 * virtual time: once behind, joining again would give it that time, as to a
 * new lane, so forgetting it changes nothing; a class that empties forgets
 * every lane. Without tenants, a class has a single lane and this is the plain
 * FIFO: no cost is computed.
 */
import { Fifo, Heap, type HeapEntry, type LinkedEntry } from "./queue.js";

/** What the scheduler needs on each entry: its FIFO links and its lane. */
export interface Scheduled<T extends Scheduled<T>> extends LinkedEntry<T> {
  /** The lane it waits in (see {@link Scheduler.lane}), and a flag of its own. */
  readonly place: Place<T>;
}

/**
 * A lane and a flag of the entry's (a waiter's `refundable`): one of two
 * objects per lane, so an entry holds both in one field (the heap per queued
 * waiter is a target of the overhead benchmark).
 */
export interface Place<T extends Scheduled<T>> {
  readonly lane: Lane<T>;
  readonly flag: boolean;
}

/** A tenant's waiters in one priority class, FIFO. */
export class Lane<T extends Scheduled<T>> extends Fifo<T> implements HeapEntry {
  /** Virtual start time of the head: the work the tenant has had served in its class. */
  tag = 0;
  /** Ties between equal tags go to the lane that took its tag first. */
  seq = 0;
  heapIndex = -1;
  /** Where an entry waits in this lane, by its flag. */
  readonly flagged: Place<T> = { lane: this, flag: true };
  readonly unflagged: Place<T> = { lane: this, flag: false };

  constructor(
    readonly band: Band<T>,
    /** `undefined`: the calls that name no tenant. */
    readonly tenant: string | undefined,
  ) {
    super();
  }
}

/** One priority class: its lanes, the busy ones in a heap by tag. */
export class Band<T extends Scheduled<T>> {
  /** Waiters in the class. */
  size = 0;
  /** The lane of the calls without a tenant: kept for good, so the common path allocates none. */
  readonly plain: Lane<T>;
  /** Lanes of named tenants: busy ones, and idle ones whose tag is still ahead of the class's. */
  readonly tenants = new Map<string, Lane<T>>();
  readonly busy: Heap<Lane<T>> = new Heap<Lane<T>>(byTag);
  /** Idle lanes still remembered, earliest tag first (pruned as the class's virtual time passes them). */
  readonly idle: Heap<Lane<T>> = new Heap<Lane<T>>(byTag);
  /** The tag of the waiter served last: where a lane that becomes busy starts. */
  virtual = 0;

  constructor(
    /** 0 for the first (most urgent) class. */
    readonly rank: number,
    /** Fraction of every bucket's capacity the class leaves untouched (its headroom). */
    readonly reserve: number,
  ) {
    this.plain = new Lane(this, undefined);
  }

  /** Whether the class knows a named tenant: tags then count (the plain lane alone needs none). */
  get shared(): boolean {
    return this.tenants.size > 0;
  }
}

function byTag<T extends Scheduled<T>>(a: Lane<T>, b: Lane<T>): boolean {
  return a.tag < b.tag || (a.tag === b.tag && a.seq < b.seq);
}

/** Cost of a waiter for fair sharing; a floor keeps a lane of zero-cost calls from standing still. */
const MIN_COST = 1e-3;

/** Waiters by priority class, then by tenant; see the file's comment. */
export class Scheduler<T extends Scheduled<T>> {
  /** Waiters in every class. */
  size = 0;
  readonly bands: readonly Band<T>[];
  private seq = 0;

  constructor(
    /** Per class, from the most urgent: the fraction of every bucket it leaves untouched. */
    reserves: readonly number[],
    /** A waiter's cost for fair sharing: ms of refill of the dimension it loads most. */
    private readonly costOf: (entry: T) => number,
  ) {
    this.bands = reserves.map((reserve, rank) => new Band<T>(rank, reserve));
  }

  /** The next waiter to serve: the head of the first busy class. */
  get head(): T | undefined {
    const bands = this.bands;
    for (let i = 0; i < bands.length; i++) {
      const band = bands[i]!;
      if (band.size > 0) return band.busy.top!.head;
    }
    return undefined;
  }

  /** Whether a waiter of class `rank` or a more urgent one is queued (a new call of `rank` must then wait). */
  waitingAtOrAbove(rank: number): boolean {
    const bands = this.bands;
    for (let i = 0; i <= rank; i++) if (bands[i]!.size > 0) return true;
    return false;
  }

  /** The lane of `tenant` in class `rank` if it exists: looked up, not made, so a question leaves nothing behind. */
  existingLane(rank: number, tenant: string | undefined): Lane<T> | undefined {
    const band = this.bands[rank]!;
    return tenant === undefined ? band.plain : band.tenants.get(tenant);
  }

  /** The lane of `tenant` in class `rank`, made on first use. */
  lane(rank: number, tenant: string | undefined): Lane<T> {
    const band = this.bands[rank]!;
    if (tenant === undefined) return band.plain;
    let lane = band.tenants.get(tenant);
    if (!lane) {
      lane = new Lane(band, tenant);
      band.tenants.set(tenant, lane);
    }
    return lane;
  }

  /** Queues `entry` at the tail of its lane. */
  push(entry: T): void {
    const lane = entry.place.lane;
    if (lane.size === 0) this.activate(lane);
    lane.push(entry);
    this.added(lane);
  }

  /** Queues `entry` at the head of its lane: a retry keeps its place ahead of its tenant's later calls. */
  unshift(entry: T): void {
    const lane = entry.place.lane;
    if (lane.size === 0) this.activate(lane);
    lane.unshift(entry);
    this.added(lane);
  }

  /** Takes `entry` out of its lane: `served` (admitted: its cost counts for its tenant), or it left. */
  remove(entry: T, served: boolean): void {
    const lane = entry.place.lane;
    const band = lane.band;
    lane.remove(entry);
    band.size--;
    this.size--;
    const shared = band.shared;
    if (served && shared) {
      band.virtual = lane.tag;
      lane.tag += Math.max(MIN_COST, this.costOf(entry));
    }
    if (lane.size > 0) {
      if (served && shared) {
        lane.seq = ++this.seq;
        band.busy.update(lane);
        this.forgetPassed(band);
      }
      return;
    }
    band.busy.remove(lane);
    if (band.size === 0) {
      this.reset(band);
      return;
    }
    if (lane !== band.plain) band.idle.push(lane);
    this.forgetPassed(band);
  }

  /**
   * Up to `max` waiters in the order they would be served if each fitted, stopping
   * before the first that `take` refuses. Serving them in this order, each is the head when its turn comes.
   */
  peek(max: number, take: (entry: T) => boolean): T[] {
    const out: T[] = [];
    for (const band of this.bands) {
      if (band.size === 0) continue;
      if (band.busy.size === 1) {
        for (let entry = band.busy.top!.head; entry; entry = entry.next) {
          if (out.length >= max || !take(entry)) return out;
          out.push(entry);
        }
        continue;
      }
      if (!this.peekShared(band, max, take, out)) return out;
    }
    return out;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const band of this.bands) for (const lane of [...band.busy]) yield* [...lane];
  }

  /** {@link peek} over a class with several busy lanes: SFQ replayed on copies of their tags. */
  private peekShared(band: Band<T>, max: number, take: (entry: T) => boolean, out: T[]): boolean {
    const lanes = [...band.busy].map((lane) => ({ next: lane.head, tag: lane.tag, seq: lane.seq }));
    let seq = this.seq;
    for (;;) {
      let first: (typeof lanes)[number] | undefined;
      for (const lane of lanes) {
        if (!lane.next) continue;
        if (!first || lane.tag < first.tag || (lane.tag === first.tag && lane.seq < first.seq)) first = lane;
      }
      if (!first) return true;
      const entry = first.next!;
      if (out.length >= max || !take(entry)) return false;
      out.push(entry);
      first.next = entry.next;
      first.tag += Math.max(MIN_COST, this.costOf(entry));
      first.seq = ++seq;
    }
  }

  private added(lane: Lane<T>): void {
    lane.band.size++;
    this.size++;
  }

  /** `lane` gets its first waiter: it starts at the class's virtual time, or at its own tag if that is later. */
  private activate(lane: Lane<T>): void {
    const band = lane.band;
    band.idle.remove(lane);
    lane.tag = Math.max(band.virtual, lane.tag);
    lane.seq = ++this.seq;
    band.busy.push(lane);
  }

  /** Idle lanes the class's virtual time has caught up with: joining again they would start there anyway. */
  private forgetPassed(band: Band<T>): void {
    for (let lane = band.idle.top; lane && lane.tag <= band.virtual; lane = band.idle.top) {
      band.idle.remove(lane);
      band.tenants.delete(lane.tenant!);
    }
  }

  /** A class with nothing queued forgets every lane: a busy period starts afresh. */
  private reset(band: Band<T>): void {
    band.idle.clear();
    band.tenants.clear();
    band.plain.tag = 0;
    band.virtual = 0;
  }
}
