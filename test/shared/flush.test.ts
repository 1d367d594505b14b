/**
 * `limiter.flush()`: the promise a Worker hands to `ctx.waitUntil`, so that the writes a request left behind
 * (settles and refunds, lease releases and renewals, header syncs) reach the store before the isolate may stop.
 */
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import type { SharedLayout, SharedReading } from "../../src/store/shared-store.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "./in-process-store.js";

const time = useFakeTime();

/**
 * A store whose writes, while `holding`, wait for `answer()`, which answers those sent so far (not those sent
 * after it); `written` counts the writes answered.
 */
class HeldWrites extends InProcessStore {
  holding = false;
  fail = false;
  written = 0;
  private held: (() => void)[] = [];

  constructor() {
    super(() => performance.now());
  }

  answer(): void {
    for (const go of this.held.splice(0)) go();
  }

  private async hold<T>(write: () => Promise<T>): Promise<T> {
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.fail) throw new Error("Redis went away");
    const result = await write();
    this.written++;
    return result;
  }

  override adjust(layout: SharedLayout, deltas: readonly number[], unbooked?: readonly number[]): Promise<void> {
    return this.hold(() => super.adjust(layout, deltas, unbooked));
  }

  override release(lease: string): Promise<void> {
    return this.hold(() => super.release(lease));
  }

  override renew(leases: readonly string[]): Promise<void> {
    return this.hold(() => super.renew(leases));
  }

  override resync(layout: SharedLayout, index: number, reading: SharedReading): Promise<void> {
    return this.hold(() => super.resync(layout, index, reading));
  }
}

/** Whether `promise` has settled after the microtasks queued so far (and a zero tick) ran. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await time.timers.tickAsync(0);
  return settled;
}

describe("limiter.flush()", () => {
  it("resolves at once in memory", async () => {
    const limiter = new Limiter({ rpm: 10, tpm: 1_000 });
    const reservation = await limiter.acquire(100);
    reservation.settle({ input: 10, output: 0 });
    reservation.release();
    expect(await isSettled(limiter.flush())).toBe(true);
  });

  it("with a store, resolves once the settle, the release and the header sync made so far are written", async () => {
    const store = new HeldWrites();
    const limiter = new Limiter({ rpm: 10, tpm: 1_000, concurrency: 2, store, onWarning: () => {} });
    const reservation = await limiter.acquire(100);
    store.holding = true;
    reservation.sync({ "x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "9" });
    // The refund waits a microtask to go as one write with others: flush() sends it at once.
    reservation.settle({ input: 10, output: 0 });
    reservation.release();
    const flushed = limiter.flush();
    // Answers what was sent by now: the refund is among them.
    store.answer();
    await flushed;
    // The header sync, the refund and the lease's release.
    expect(store.written).toBe(3);
    expect(store.levelOf(layoutOf(1_000), "tpm")).toBe(990);
  });

  it("waits for a lease renewal in flight, and resolves (not rejects) when a write fails", async () => {
    const store = new HeldWrites();
    const warnings: Error[] = [];
    const limiter = new Limiter({ rpm: 10, concurrency: 1, store, onWarning: (w) => warnings.push(w) });
    const reservation = await limiter.acquire(0);
    store.holding = true;
    await time.timers.tickAsync(store.leaseMs / 3);
    const flushed = limiter.flush();
    expect(await isSettled(flushed)).toBe(false);
    store.fail = true;
    store.answer();
    await flushed;
    expect(warnings.map((w) => w.message)).toEqual(["Redis went away"]);
    store.holding = false;
    store.fail = false;
    reservation.release();
    await limiter.close();
  });
});

function layoutOf(tpm: number): SharedLayout {
  return {
    dimensions: [
      { name: "rpm", limit: 10, windowMs: 60_000, capacity: 10 },
      { name: "tpm", limit: tpm, windowMs: 60_000, capacity: tpm },
    ],
    concurrency: 2,
    initialFraction: 1,
  };
}
