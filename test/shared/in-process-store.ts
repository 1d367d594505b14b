import type {
  Booking,
  SharedLayout,
  SharedReading,
  SharedStore,
  StoreFailurePolicy,
} from "../../src/store/shared-store.js";

interface State {
  level: number;
  at: number;
  booked: number;
  pausedUntil: number;
  /** How far header sync set the level below the own count. */
  below: number;
  /** Draws booked for later the provider may not have seen (see holdsRefill): two slots, as the scripts keep. */
  unseen: [Slot, Slot];
}

/** Draws booked for later, unseen by the provider until `till` at the latest. */
interface Slot {
  amount: number;
  till: number;
}

/**
 * A {@link SharedStore} in this process, on the test's clock: the same contract
 * as the Redis store, so limiter behaviour over a shared store can be tested on
 * virtual time. `down` makes every call fail, as an unreachable Redis would;
 * `slow` holds booking calls until it settles, as a slow Redis would. With
 * `holdsRefill`, the store keeps the booking script's rules for draws that
 * reach the provider later than they are taken (see `holdRefill`; off by
 * default: the tests written before it time admissions without them).
 */
export class InProcessStore implements SharedStore {
  down = false;
  slow: Promise<void> | undefined;
  calls = 0;
  private readonly states = new Map<string, State>();
  private readonly leases = new Map<string, number>();
  private nextLease = 0;

  constructor(
    private readonly now: () => number,
    readonly leaseMs = 60_000,
    readonly onError: StoreFailurePolicy = "fail-closed",
    private readonly holdsRefill = false,
  ) {}

  async book(layout: SharedLayout, requests: readonly (readonly number[])[]): Promise<Booking> {
    await this.slow;
    this.enter();
    const now = this.now();
    const states = layout.dimensions.map((d) => this.refilled(layout, d.name, now));
    const leases: string[] = [];
    const marks: number[][] = [];
    for (const costs of requests) {
      let waitMs = 0;
      let dimension: string | undefined;
      layout.dimensions.forEach((d, i) => {
        const state = states[i]!;
        const cost = costs[i]!;
        // Refill held back (see holdsRefill) starts that much later.
        const held = Math.max(0, state.at - now);
        const wait = Math.max(
          state.level >= cost ? 0 : held + ((cost - state.level) * d.windowMs) / d.limit,
          cost > 0 ? state.pausedUntil - now : 0,
        );
        if (wait > waitMs) {
          waitMs = wait;
          dimension = d.name;
        }
      });
      const lease =
        waitMs === 0 && layout.concurrency !== undefined ? this.tryLease(layout.concurrency, now) : undefined;
      if (waitMs === 0 && layout.concurrency !== undefined && lease === undefined) {
        return {
          admitted: marks.length,
          booked: false,
          waitMs: this.untilFreeSlot(now),
          dimension: "concurrency",
          leases,
          marks,
          levels: states.map((s) => s.level),
        };
      }
      const lost = states.map((state, i) => {
        const over = this.holdsRefill ? this.holdRefill(layout, i, state, costs[i]!, now, waitMs) : 0;
        state.level -= costs[i]!;
        state.booked += costs[i]!;
        return over;
      });
      marks.push(states.map((s) => s.booked));
      if (waitMs > 0)
        return {
          admitted: marks.length - 1,
          booked: true,
          waitMs,
          dimension,
          leases,
          marks,
          levels: states.map((s) => s.level),
          lost,
        };
      if (lease !== undefined) leases.push(lease);
    }
    return {
      admitted: marks.length,
      booked: false,
      waitMs: 0,
      dimension: undefined,
      leases,
      marks,
      levels: states.map((s) => s.level),
    };
  }

  async lease(layout: SharedLayout): Promise<{ lease: string | undefined; retryMs: number }> {
    this.enter();
    const now = this.now();
    const lease = this.tryLease(layout.concurrency ?? Infinity, now);
    return { lease, retryMs: lease === undefined ? this.untilFreeSlot(now) : 0 };
  }

  async adjust(layout: SharedLayout, deltas: readonly number[], unbooked?: readonly number[]): Promise<void> {
    this.enter();
    const now = this.now();
    layout.dimensions.forEach((d, i) => {
      const state = this.refilled(layout, d.name, now);
      if ((unbooked?.[i] ?? 0) > 0) this.unbook(state, unbooked![i]!);
      state.level = Math.min(d.capacity - unseenTotal(state), state.level + deltas[i]!);
    });
  }

  async release(lease: string): Promise<void> {
    this.enter();
    this.leases.delete(lease);
  }

  async renew(leases: readonly string[]): Promise<void> {
    this.enter();
    for (const lease of leases) if (this.leases.has(lease)) this.leases.set(lease, this.now() + this.leaseMs);
  }

  async lower(layout: SharedLayout, index: number, remaining: number, mark: number | undefined): Promise<void> {
    this.set(layout, index, { remaining, brought: remaining, mark }, false);
  }

  async resync(layout: SharedLayout, index: number, reading: SharedReading): Promise<void> {
    this.set(layout, index, reading, true);
  }

  /** As the `lower` script: the own count is the level plus `below`, which refill to capacity alike. */
  private set(layout: SharedLayout, index: number, { remaining, brought, mark }: SharedReading, raise: boolean): void {
    this.enter();
    const d = layout.dimensions[index]!;
    const state = this.refilled(layout, d.name, this.now());
    const truth = Math.max(
      0,
      Math.min(remaining, brought - (mark === undefined ? 0 : Math.max(0, state.booked - mark))),
    );
    const own = state.level + Math.max(0, Math.min(state.below, d.capacity - state.level));
    const set = raise && state.level >= 0 ? Math.min(own, truth) : Math.min(state.level, truth);
    // As the scripts' save(): never above what the provider's bucket holds with the draws it has not seen.
    state.level = Math.min(set, d.capacity - unseenTotal(state));
    state.below = own - set;
  }

  async pause(layout: SharedLayout, indices: readonly number[] | undefined, ms: number): Promise<void> {
    this.enter();
    const now = this.now();
    layout.dimensions.forEach((d, i) => {
      if (indices && !indices.includes(i)) return;
      const state = this.refilled(layout, d.name, now);
      state.pausedUntil = Math.max(state.pausedUntil, now + ms);
    });
  }

  async unpause(layout: SharedLayout, indices: readonly number[] | undefined): Promise<void> {
    this.enter();
    const now = this.now();
    layout.dimensions.forEach((d, i) => {
      if (indices && !indices.includes(i)) return;
      this.refilled(layout, d.name, now).pausedUntil = 0;
    });
  }

  /** The level of `name` now, as the store sees it. */
  levelOf(layout: SharedLayout, name: string): number {
    return this.refilled(layout, name, this.now()).level;
  }

  get leasesHeld(): number {
    return this.leases.size;
  }

  /**
   * The provider's bucket may sit full until a draw reaches it: no refill before then (see SharedLayout). A draw
   * `booked` for later is taken when due: what refill would bring past the capacity by then, and until it
   * arrives, overflows the provider's bucket and is lost here too. Returns what was lost.
   */
  private holdRefill(
    layout: SharedLayout,
    index: number,
    state: State,
    cost: number,
    now: number,
    waitMs: number,
  ): number {
    if (!(cost > 0)) return 0;
    const delay = layout.arrivalDelayMs ?? 0;
    const { limit, windowMs, capacity } = layout.dimensions[index]!;
    if (waitMs > 0) {
      const held = Math.max(0, state.at - now);
      const over = state.level + ((Math.max(0, waitMs - held) + delay) * limit) / windowMs - capacity;
      // Until it arrives, refunds and refill that would fill the provider's bucket overflow it too: a free slot
      // takes it, else the one that ends later.
      const [first, second] = state.unseen;
      const till = now + waitMs + delay;
      const slot =
        first.amount === 0 ? first : second.amount === 0 ? second : first.till > second.till ? first : second;
      slot.till = slot.amount === 0 ? till : Math.max(slot.till, till);
      slot.amount += cost;
      if (over > 0) {
        state.level -= over;
        return over;
      }
    } else if (delay > 0 && state.level + (delay * limit) / windowMs >= capacity && state.at < now + delay) {
      state.at = now + delay;
    }
    return 0;
  }

  private enter(): void {
    this.calls++;
    if (this.down) throw new Error("store unreachable");
  }

  private refilled(layout: SharedLayout, name: string, now: number): State {
    const d = layout.dimensions.find((x) => x.name === name)!;
    let state = this.states.get(name);
    if (!state) {
      state = {
        level: d.capacity * layout.initialFraction,
        at: now,
        booked: 0,
        pausedUntil: 0,
        below: 0,
        unseen: [
          { amount: 0, till: 0 },
          { amount: 0, till: 0 },
        ],
      };
      this.states.set(name, state);
    }
    // As the provider's bucket stops at capacity, the level stops at capacity less the draws it has not seen; each
    // slot ends in turn.
    const [first, second] = state.unseen;
    for (const slot of second.amount > 0 && second.till < first.till ? [second, first] : [first, second]) {
      if (slot.amount > 0 && slot.till <= now) {
        refillTo(d, state, slot.till);
        slot.amount = 0;
      }
    }
    if (first.amount === 0) state.unseen = [second, first];
    refillTo(d, state, now);
    return state;
  }

  /** A draw booked for later given back: taken from the slot that ends first (see the adjust script). */
  private unbook(state: State, amount: number): void {
    const [first, second] = state.unseen;
    for (const slot of second.amount > 0 && second.till < first.till ? [second, first] : [first, second]) {
      const take = Math.min(slot.amount, amount);
      slot.amount -= take;
      amount -= take;
    }
    if (first.amount === 0) state.unseen = [second, first];
  }

  private tryLease(limit: number, now: number): string | undefined {
    for (const [id, expiry] of this.leases) if (expiry <= now) this.leases.delete(id);
    if (this.leases.size >= limit) return undefined;
    const id = `lease-${this.nextLease++}`;
    this.leases.set(id, now + this.leaseMs);
    return id;
  }

  private untilFreeSlot(now: number): number {
    return Math.max(1, Math.min(...this.leases.values()) - now);
  }
}

/** What the provider has not seen of the draws booked for later. */
function unseenTotal(state: State): number {
  return state.unseen[0].amount + state.unseen[1].amount;
}

/** Refills `state` to `now`, up to capacity less what the provider has not seen. */
function refillTo(d: SharedLayout["dimensions"][number], state: State, now: number): void {
  if (now > state.at) {
    state.level = Math.min(d.capacity - unseenTotal(state), state.level + ((now - state.at) * d.limit) / d.windowMs);
    state.at = now;
  }
}
