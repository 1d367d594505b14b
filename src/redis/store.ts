import type { Booking, SharedLayout, SharedReading, StoreFailurePolicy } from "../store/shared-store.js";
import { layoutArgs, num, perDimension } from "./args.js";
import { StoreReplyError } from "./errors.js";
import { resolveOptions, type RedisStoreOptions } from "./options.js";
import { randomId } from "./random-id.js";
import { fields, malformed, number, type Field } from "./reply.js";
import { ScriptRunner } from "./runner.js";
import { scripts } from "./scripts/index.js";

/**
 * The longest pause sent to the pause script, in ms (2^40, 35 years): the longest TTL a script gives the
 * hash, which a pause must not outlive; and a time that far ahead stays within the numbers the scripts read.
 */
const LONGEST_PAUSE_MS = 2 ** 40;

/**
 * Bucket state in Redis (5 or later; Cluster works), shared by every process
 * that uses the same `key`. Each method is one script, one round trip, timed
 * by Redis `TIME`. Failing to reach Redis in time rejects with
 * `StoreUnavailableError`; whether a `book` or `adjust` that timed out took
 * effect is then unknown, so neither should be retried blindly. An error reply
 * that retrying cannot cure rejects with `StoreReplyError`.
 *
 * Pass it as a `Limiter`'s `store`. Its methods are the limiter's own protocol with its store, internal to
 * the package: a store of your own is not supported.
 */
export class RedisStore {
  /** @internal */
  readonly leaseMs: number;
  /** @internal */
  readonly onError: StoreFailurePolicy;
  private readonly runner: ScriptRunner;
  /** The bucket hash and the lease set: one hash tag, so one Cluster slot (a group member's has its own lease set). */
  protected keys: readonly [string, string];
  /** The booking script's keys: those, then the hash of the processes that want more (a member's is its own). */
  protected bookKeys: readonly [string, string, string];
  /** This store's id among the processes that want more of the key (see `SharedStore.book`). */
  private readonly id = randomId();
  /** Whether the last booking left this store wanting more: the script then has it listed in the demand hash. */
  private listed = false;
  /** Each layout's arguments, made once: a limiter sends the same layout object until it is configured again. */
  private readonly layouts = new WeakMap<SharedLayout, readonly string[]>();

  constructor(options: RedisStoreOptions) {
    const { client, key, timeoutMs, leaseMs, onError } = resolveOptions(options);
    this.leaseMs = leaseMs;
    this.onError = onError;
    this.runner = new ScriptRunner(client, timeoutMs);
    this.keys = [`{${key}}:b`, `{${key}}:c`];
    this.bookKeys = [...this.keys, `{${key}}:d`];
  }

  /** @internal */
  isFinal(error: unknown): boolean {
    return error instanceof StoreReplyError;
  }

  /**
   * A `CORRUPT` reply: a script found a field that is not a finite number, and reset what it spoiled.
   * @internal
   */
  repaired(error: unknown): boolean {
    return error instanceof StoreReplyError && error.replyCode === "CORRUPT";
  }

  /** @internal */
  async book(layout: SharedLayout, requests: readonly (readonly number[])[], more = false): Promise<Booking> {
    const n = layout.dimensions.length;
    // Lease ids: only a limited concurrency takes leases.
    const prefix = layout.concurrency === undefined ? "" : randomId();
    const args = [...this.layoutArgs(layout), String(requests.length)];
    requests.forEach((costs, r) => args.push(...perDimension(`requests[${r}]`, layout, costs)));
    args.push(num("arrivalDelayMs", layout.arrivalDelayMs ?? 0), this.id, more ? "1" : "", this.listed ? "1" : "");
    // Listed from now on if it may be: a reply that never comes leaves the next call to read the hash.
    this.listed ||= more;
    if (layout.concurrency !== undefined) {
      args.push(num("concurrency", layout.concurrency), String(this.leaseMs), prefix);
    }
    const sent = await this.runner.run(scripts.book, this.bookKeys, args);
    try {
      return this.booking(layout, requests, more, fields(sent, 4 + 3 * n), prefix);
    } catch (error) {
      throw malformed(error, this.bookKeys);
    }
  }

  /** The booking a reply of the booking script tells of; throws on a reply that is not one. */
  private booking(
    layout: SharedLayout,
    requests: readonly (readonly number[])[],
    more: boolean,
    reply: Field[],
    prefix: string,
  ): Booking {
    const n = layout.dimensions.length;
    const [admittedField, bookedField, waitMs, dimension] = reply as [Field, Field, Field, Field];
    const admitted = number(admittedField);
    const booked = number(bookedField) === 1;
    const taken = admitted + (booked ? 1 : 0);
    if (!Number.isInteger(admitted) || admitted < 0 || taken > requests.length)
      throw new TypeError(`Unexpected count from the Redis store script: ${admitted} admitted of ${requests.length}`);
    this.listed = more || taken < requests.length;
    // Each request's marks: the totals before the batch plus the costs up to it, added as the script added them.
    const marks: number[][] = [];
    let totals = reply.slice(4, 4 + n).map(number);
    for (let r = 0; r < taken; r++) {
      const costs = requests[r]!;
      totals = totals.map((total, i) => total + costs[i]!);
      marks.push(totals);
    }
    return {
      admitted,
      booked,
      waitMs: number(waitMs),
      dimension: dimension === "" ? undefined : String(dimension),
      leases: layout.concurrency === undefined ? [] : Array.from({ length: admitted }, (_, r) => `${prefix}:${r + 1}`),
      marks,
      levels: reply.slice(4 + n, 4 + 2 * n).map(number),
      lost: reply.slice(4 + 2 * n).map(number),
    };
  }

  /** @internal */
  async dueIn(layout: SharedLayout, marks: readonly (number | undefined)[]): Promise<number> {
    const args = [...this.layoutArgs(layout), this.id, ...perDimension("marks", layout, marks)];
    const sent = await this.runner.run(scripts.due, this.bookKeys, args);
    try {
      return number(fields(sent, 2)[0]!);
    } catch (error) {
      throw malformed(error, this.bookKeys);
    }
  }

  /**
   * With no concurrency limit there is nothing to take: resolves `{ lease: undefined, retryMs: 0 }` at once.
   * @internal
   */
  async lease(layout: SharedLayout): Promise<{
    /** The lease taken, to give back with `release`; `undefined` when every slot is held. */
    readonly lease: string | undefined;
    /** With no lease: ms until the earliest lease expires, at the latest, to retry then. `0` with a lease. */
    readonly retryMs: number;
  }> {
    if (layout.concurrency === undefined) return { lease: undefined, retryMs: 0 };
    const args = [num("concurrency", layout.concurrency), String(this.leaseMs), randomId()];
    const sent = await this.runner.run(scripts.lease, this.keys, args);
    try {
      const [lease, retryMs] = fields(sent, 2) as [Field, Field];
      return { lease: lease === "" ? undefined : String(lease), retryMs: number(retryMs) };
    } catch (error) {
      throw malformed(error, this.keys);
    }
  }

  /** @internal */
  async adjust(layout: SharedLayout, deltas: readonly number[], unbooked?: readonly number[]): Promise<void> {
    const args = [...this.layoutArgs(layout), ...perDimension("deltas", layout, deltas)];
    if (unbooked?.some((amount) => amount > 0)) args.push(...perDimension("unbooked", layout, unbooked));
    await this.runner.run(scripts.adjust, this.keys, args);
  }

  /** @internal */
  async release(lease: string): Promise<void> {
    await this.runner.run(scripts.release, this.keys, [lease]);
  }

  /** @internal */
  async renew(leases: readonly string[]): Promise<void> {
    if (leases.length === 0) return;
    await this.runner.run(scripts.renew, this.keys, [String(this.leaseMs), ...leases]);
  }

  /** @internal */
  async lower(layout: SharedLayout, index: number, remaining: number, mark: number | undefined): Promise<void> {
    await this.sync("lower", layout, index, { remaining, brought: remaining, mark }, false);
  }

  /** @internal */
  async resync(layout: SharedLayout, index: number, reading: SharedReading): Promise<void> {
    await this.sync("resync", layout, index, reading, true);
  }

  /** One dimension to a reading: the `lower` script, which raises up to the own count when `raise` says so. */
  private async sync(
    method: string,
    layout: SharedLayout,
    index: number,
    { remaining, brought, mark }: SharedReading,
    raise: boolean,
  ): Promise<void> {
    const dimension = layout.dimensions[index];
    if (dimension === undefined) throw new RangeError(`${method}(): no dimension at index ${index}`);
    const args = [
      ...layoutArgs(layout, [dimension]),
      num("remaining", remaining),
      num("brought", brought),
      mark === undefined ? "" : num("mark", mark),
      raise ? "1" : "",
    ];
    await this.runner.run(scripts.lower, this.keys, args);
  }

  /** @internal */
  async pause(layout: SharedLayout, indices: readonly number[] | undefined, ms: number): Promise<void> {
    const names = this.namesOf("pause", layout, indices);
    if (names.length === 0 || ms <= 0) return;
    await this.runner.run(scripts.pause, this.keys, [num("ms", Math.min(ms, LONGEST_PAUSE_MS)), ...names]);
  }

  /** @internal */
  async unpause(layout: SharedLayout, indices: readonly number[] | undefined): Promise<void> {
    const names = this.namesOf("unpause", layout, indices);
    if (names.length > 0) await this.runner.run(scripts.unpause, this.keys, names);
  }

  /** The names of the dimensions at `indices` (all when `undefined`). */
  private namesOf(method: string, layout: SharedLayout, indices: readonly number[] | undefined): string[] {
    return (indices ?? layout.dimensions.map((_, i) => i)).map((i) => {
      const dimension = layout.dimensions[i];
      if (dimension === undefined) throw new RangeError(`${method}(): no dimension at index ${i}`);
      return dimension.name;
    });
  }

  private layoutArgs(layout: SharedLayout): readonly string[] {
    let args = this.layouts.get(layout);
    if (args === undefined) {
      args = layoutArgs(layout);
      this.layouts.set(layout, args);
    }
    return args;
  }
}
