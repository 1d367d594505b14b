import { PoolOrder } from "../admission/pool-order.js";
import { BucketPool } from "../buckets/bucket-pool.js";
import type { DimensionSnapshot } from "../buckets/types.js";
import { wholeUnits } from "../core/bucket.js";
import { systemClock, type Clock } from "../core/clock.js";
import { LimiterClosedError } from "../core/errors.js";
import type { Estimate, Limits } from "../core/limits.js";
import { setOwn } from "../core/values.js";
import type { Meter } from "../core/meter.js";
import type { Reservation } from "../core/reservation.js";
import { disposer } from "../events/disposer.js";
import { checkListener } from "../events/hub.js";
import type { Disposer, LimiterEventName, LimiterEvents } from "../events/types.js";
import { limitedFetch, type FetchOptions } from "../fetch/index.js";
import { joinGroup, Limiter, type LimiterSnapshot } from "../limiter.js";
import type { GroupSeat } from "../modes.js";
import type { RunOptions, RunResult } from "../options.js";
import { isShared, memberOptions, readGroupOptions, SHARED_PREFIX, type GroupConfig } from "./config.js";
import type { GroupListener, GroupSnapshot, LimiterGroupOptions } from "./options.js";
import { runOnSoonest, type Candidate, type WaitPredictor } from "./run-any.js";
import { storeWait } from "./store-wait.js";
import { emitWarning } from "../core/warnings.js";

/** A member: its limiter, and what predicts its waits (its admission, in this process). */
interface Member {
  readonly limiter: Limiter;
  readonly admission: WaitPredictor;
}

/** A listener of `group.on`, and what removes it from each member it was added to, by member name. */
interface Forwarding {
  readonly name: LimiterEventName;
  readonly listener: (event: never, member: string) => void;
  readonly offs: Map<string, Disposer>;
}

/**
 * Limiters for several models (deployments, regions) that also draw on budgets
 * they share. Each member is a {@link Limiter} of its own budgets plus the
 * shared ones, and a call takes from both in one atomic admission; the shared
 * budgets serve the members' waiting calls in one FIFO. Members for models not
 * listed are made from `default` on first use, at most `maxMembers` at once.
 * With `store` (a `RedisGroupStore`), the buckets live in Redis and every
 * process on the same key shares them: one script admits against both.
 *
 * @example
 * ```ts
 * import { LimiterGroup } from "llm-limiter";
 *
 * const group = new LimiterGroup({
 *   models: { "gpt-4o": { rpm: 500, tpm: 30_000 }, "gpt-4o-mini": { rpm: 5_000, tpm: 200_000 } },
 *   shared: { tpd: 2_000_000 },
 * });
 * const answer = await group.run("gpt-4o", 1_200, async () => ({ value: "...", used: 900 }));
 * ```
 */
export class LimiterGroup {
  private readonly config: GroupConfig;
  private readonly clock: Clock;
  private readonly seatParts: Omit<GroupSeat, "admission">;
  private readonly listed = new Map<string, Member>();
  /** Members made from `default`, the least recently used first. */
  private readonly made = new Map<string, Member>();
  /** The listeners of `group.on`: added to every member, those made later included. */
  private readonly forwardings = new Set<Forwarding>();
  private shut = false;

  /** Throws TypeError/RangeError on bad options, having made nothing that needs closing. */
  constructor(options: LimiterGroupOptions) {
    this.config = readGroupOptions(options);
    this.clock = this.config.common.clock ?? systemClock;
    const buckets = new BucketPool(SHARED_PREFIX);
    const meters = { holds: (name: string) => buckets.holds(name), byName: new Map<string, Meter>() };
    this.seatParts = { meters, buckets, order: new PoolOrder(buckets) };
    try {
      for (const [name, limits] of this.config.models) this.listed.set(name, this.join(name, limits));
    } catch (error) {
      for (const member of this.listed.values()) void member.limiter.close();
      throw error;
    }
  }

  /**
   * The member for `name`: a {@link Limiter} (run, acquire, sync, snapshot...).
   * A name not in `models` gets a member made from `default`; without `default`, a TypeError.
   * Throws `LimiterClosedError` after `close()`. Do not hold on to a member
   * made from `default`: an idle one may be evicted (and closed) to make room.
   */
  for(name: string): Limiter {
    return this.member(name).limiter;
  }

  /** `group.for(name).run(...)`: rejects (never throws) on an unknown name or a closed group. */
  run<T>(
    name: string,
    estimate: Estimate,
    fn: (reservation: Reservation) => Promise<RunResult<T>> | RunResult<T>,
    options?: RunOptions,
  ): Promise<T> {
    let limiter: Limiter;
    try {
      limiter = this.for(name);
    } catch (error) {
      return Promise.reject(error);
    }
    return limiter.run(estimate, fn, options);
  }

  /**
   * Runs `fn` on whichever of `names` is predicted to admit `estimate` soonest
   * (from its levels, pauses and what its queue serves before a call of this `priority` and `tenant`),
   * telling `fn` which. With `retry`, a
   * 429 whose retry hint is longer than the group's `moveAfterMs` moves the
   * retry to the soonest other candidate; a shorter one (or none: backoff)
   * retries on the same one.
   */
  runAny<T>(
    names: readonly string[],
    estimate: Estimate,
    fn: (reservation: Reservation, name: string) => Promise<RunResult<T>> | RunResult<T>,
    options?: RunOptions,
  ): Promise<T> {
    let candidates: Candidate[];
    try {
      if (!Array.isArray(names) || names.length === 0) {
        throw new TypeError("runAny(): names must be a non-empty array of member names");
      }
      if (typeof fn !== "function") throw new TypeError("runAny(): fn must be a function");
      candidates = [...new Set(names)].map((name) => ({ name, ...this.member(name) }));
    } catch (error) {
      return Promise.reject(error);
    }
    const { common, moveAfterMs, classes } = this.config;
    const context = { clock: this.clock, provider: common.provider, moveAfterMs, classes };
    return runOnSoonest(candidates, estimate, fn, options, context);
  }

  /**
   * `limiter.fetch()` for the whole group: each request is admitted by the member its model names (the
   * body's `model`, Azure's deployment in the URL), made from `default` when not listed. A request that
   * names no model (a `GET` of the model list) is sent unadmitted: no member's budget covers it.
   */
  fetch(options?: FetchOptions): typeof globalThis.fetch {
    const { classes, common } = this.config;
    return limitedFetch((model) => (model === undefined ? undefined : this.for(model)), options, {
      checkPriority: (priority) => classes.rankOf(priority),
      warn: common.onWarning ?? emitWarning,
    });
  }

  /**
   * Adds `listener` to event `name` of every member, those made from `default` later included (see
   * `Limiter.on`); it receives the member's name beside the payload. The returned function removes it from
   * them all. A member evicted stops telling it anything. Throws TypeError on an unknown event name.
   *
   * @example
   * ```ts
   * import { LimiterGroup } from "llm-limiter";
   *
   * declare const group: LimiterGroup;
   * const off = group.on("rejected", ({ reason }, model) => console.warn(`${model}: refused (${reason})`));
   * ```
   */
  on<K extends LimiterEventName>(name: K, listener: GroupListener<K>): Disposer {
    checkListener(name, listener);
    const forwarding: Forwarding = { name, listener: listener as Forwarding["listener"], offs: new Map() };
    this.forwardings.add(forwarding);
    for (const [member, { limiter }] of this.members()) this.forward(forwarding, member, limiter);
    return disposer(() => {
      this.forwardings.delete(forwarding);
      for (const off of forwarding.offs.values()) off();
      forwarding.offs.clear();
    });
  }

  /**
   * Every member's snapshot, and the shared dimensions' levels. With a store, those are the levels the
   * latest booking of a member in this process brought back.
   */
  snapshot(): GroupSnapshot {
    const members: Record<string, LimiterSnapshot> = {};
    for (const [name, member] of this.members()) setOwn(members, name, member.limiter.snapshot());
    const shared: Record<string, DimensionSnapshot> = {};
    for (const [name, d] of Object.entries(this.sharedLevels())) {
      setOwn(shared, name, { ...d, available: wholeUnits(d.available) });
    }
    return { members, shared };
  }

  /**
   * Ends every pause a 429 set, on every member (`Limiter.resume`): the shared dimensions' too, and with a
   * store, for every process on the keys.
   */
  resume(): void {
    for (const [, member] of this.members()) member.limiter.resume();
  }

  /** Resolves when no member has anything queued or in flight. */
  async onIdle(): Promise<void> {
    // A call may start on one member while another is awaited: look again until all were idle together.
    for (;;) {
      const members = [...this.members()].map(([, member]) => member.limiter);
      await Promise.all(members.map((limiter) => limiter.onIdle()));
      if (members.every((limiter) => isIdle(limiter))) return;
    }
  }

  /** Closes every member (`Limiter.close`); later calls reject with `LimiterClosedError`. */
  async close(): Promise<void> {
    this.shut = true;
    await Promise.all([...this.members()].map(([, member]) => member.limiter.close()));
  }

  private *members(): IterableIterator<[string, Member]> {
    yield* this.listed;
    yield* this.made;
  }

  private member(name: string): Member {
    if (this.shut) throw new LimiterClosedError();
    if (typeof name !== "string") throw new TypeError(`a member's name must be a string, got ${typeof name}`);
    const listed = this.listed.get(name);
    if (listed) return listed;
    const made = this.made.get(name);
    if (made) {
      // Most recently used last: eviction takes the front.
      this.made.delete(name);
      this.made.set(name, made);
      return made;
    }
    const fallback = this.config.fallback;
    if (!fallback) throw new TypeError(`no model "${name}" in the group, and no \`default\` to make it from`);
    this.makeRoom();
    const member = this.join(name, fallback);
    this.made.set(name, member);
    return member;
  }

  /** At `maxMembers` made from `default`: evicts the least recently used idle one. */
  private makeRoom(): void {
    if (this.made.size < this.config.maxMembers) return;
    for (const [name, member] of this.made) {
      if (!isIdle(member.limiter)) continue;
      this.made.delete(name);
      for (const forwarding of this.forwardings) {
        forwarding.offs.get(name)?.();
        forwarding.offs.delete(name);
      }
      void member.limiter.close();
      return;
    }
    throw new RangeError(`maxMembers: all ${this.config.maxMembers} members made from \`default\` are busy`);
  }

  /** The shared dimensions by their names in `shared`, levels not floored. */
  private sharedLevels(): Record<string, DimensionSnapshot> {
    const { store, shared, initialFraction } = this.config;
    if (!store) return this.seatParts.buckets.snapshot(this.clock.now());
    const levels = store.sharedLevels();
    const view: Record<string, DimensionSnapshot> = {};
    for (const [name, { limit, windowMs, capacity = limit }] of Object.entries(shared)) {
      const available = levels.get(name) ?? capacity * initialFraction;
      setOwn(view, name.slice(SHARED_PREFIX.length), { limit, windowMs, capacity, available });
    }
    return view;
  }

  private join(name: string, own: Limits): Member {
    const options = memberOptions(this.config, own);
    const { store } = this.config;
    let member: Member;
    try {
      if (store) {
        const limiter = new Limiter({ ...options, store: store.member(name, isShared) });
        member = { limiter, admission: storeWait(limiter, options) };
      } else {
        const seat: GroupSeat = { ...this.seatParts };
        member = { limiter: joinGroup(options, seat), admission: seat.admission! };
      }
    } catch (error) {
      if (error instanceof Error) error.message = `group member "${name}": ${error.message}`;
      throw error;
    }
    for (const forwarding of this.forwardings) this.forward(forwarding, name, member.limiter);
    return member;
  }

  /** Adds `forwarding`'s listener to member `name`'s `limiter`, the payload passed on with the member's name. */
  private forward(forwarding: Forwarding, name: string, limiter: Limiter): void {
    const { listener } = forwarding;
    const off = limiter.on(forwarding.name, (event: LimiterEvents[LimiterEventName]) => listener(event as never, name));
    forwarding.offs.set(name, off);
  }
}

function isIdle(limiter: Limiter): boolean {
  const { queued, inFlight } = limiter.snapshot();
  return queued === 0 && inFlight === 0;
}
