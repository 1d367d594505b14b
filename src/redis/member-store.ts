import type { Booking, SharedLayout, SharedReading } from "../store/shared-store.js";
import type { RedisStoreOptions } from "./options.js";
import { RedisStore } from "./store.js";

/** A layout as the member's store sends it, and the names it sent back by the names they stand for. */
interface Stored {
  readonly layout: SharedLayout;
  readonly names: ReadonlyMap<string, string>;
}

/**
 * One `LimiterGroup` member's store on a {@link RedisGroupStore}: a `RedisStore` on the group's bucket hash
 * (one hash tag for the whole group, so one script admits against all of it) in which the member's own
 * dimensions go under its name (`"gpt-4o"/tpm`: a JSON string, so no two members' names can meet) and the
 * shared ones under their own (`project-tpd`), with a lease set of its own: its `concurrency` is its own.
 */
export class RedisMemberStore extends RedisStore {
  /** Made once per layout object: a limiter sends the same one until it is configured again. */
  private readonly stored = new WeakMap<SharedLayout, Stored>();
  private readonly prefix: string;

  constructor(
    options: RedisStoreOptions,
    member: string,
    private readonly isShared: (dimension: string) => boolean,
    /** Hears each booking's levels, by the dimensions' names in the limiter. */
    private readonly heard: (layout: SharedLayout, levels: readonly number[]) => void,
  ) {
    super(options);
    this.prefix = `${JSON.stringify(member)}/`;
    this.keys = [this.keys[0], `${this.keys[1]}:${member}`];
    this.bookKeys = [...this.keys, `${this.bookKeys[2]}:${member}`];
  }

  override async book(layout: SharedLayout, requests: readonly (readonly number[])[], more = false): Promise<Booking> {
    const { layout: sent, names } = this.storedAs(layout);
    const booking = await super.book(sent, requests, more);
    this.heard(layout, booking.levels);
    const { dimension } = booking;
    return dimension === undefined ? booking : { ...booking, dimension: names.get(dimension) ?? dimension };
  }

  override dueIn(layout: SharedLayout, marks: readonly (number | undefined)[]): Promise<number> {
    return super.dueIn(this.storedAs(layout).layout, marks);
  }

  override lease(layout: SharedLayout): ReturnType<RedisStore["lease"]> {
    return super.lease(this.storedAs(layout).layout);
  }

  override adjust(layout: SharedLayout, deltas: readonly number[], unbooked?: readonly number[]): Promise<void> {
    return super.adjust(this.storedAs(layout).layout, deltas, unbooked);
  }

  override lower(layout: SharedLayout, index: number, remaining: number, mark: number | undefined): Promise<void> {
    return super.lower(this.storedAs(layout).layout, index, remaining, mark);
  }

  override resync(layout: SharedLayout, index: number, reading: SharedReading): Promise<void> {
    return super.resync(this.storedAs(layout).layout, index, reading);
  }

  override pause(layout: SharedLayout, indices: readonly number[] | undefined, ms: number): Promise<void> {
    return super.pause(this.storedAs(layout).layout, indices, ms);
  }

  override unpause(layout: SharedLayout, indices: readonly number[] | undefined): Promise<void> {
    return super.unpause(this.storedAs(layout).layout, indices);
  }

  private storedAs(layout: SharedLayout): Stored {
    let stored = this.stored.get(layout);
    if (stored === undefined) {
      const names = new Map<string, string>();
      const dimensions = layout.dimensions.map((d) => {
        const name = this.isShared(d.name) ? d.name : this.prefix + d.name;
        names.set(name, d.name);
        return { ...d, name };
      });
      stored = { layout: { ...layout, dimensions }, names };
      this.stored.set(layout, stored);
    }
    return stored;
  }
}
