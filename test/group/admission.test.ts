import { describe, expect, it } from "vitest";
import { LimiterGroup, type Reservation } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** A group on fake time, buckets full at the start and calls that arrive at once (no start-up probe). */
function group(options: ConstructorParameters<typeof LimiterGroup>[0]): LimiterGroup {
  return new LimiterGroup({ initial: "full", arrivalDelayMs: 0, clock: time.clock, ...options });
}

/** Admission times in ms, as the calls resolve. */
function track(promise: Promise<Reservation>, log: [string, number][], label: string): Promise<Reservation> {
  return promise.then((reservation) => {
    log.push([label, time.clock.now()]);
    return reservation;
  });
}

describe("LimiterGroup admission", () => {
  it("takes from the member's buckets and the shared ones together", async () => {
    const g = group({ models: { a: { rpm: 10, tpm: 1_000 }, b: { tpm: 5_000 } }, shared: { tpm: 1_500 } });
    await g.for("a").acquire(600);
    await g.for("b").acquire(500);
    const { members, shared } = g.snapshot();
    expect(members.a!.dimensions.tpm!.available).toBe(400);
    expect(members.a!.dimensions.rpm!.available).toBe(9);
    expect(members.b!.dimensions.tpm!.available).toBe(4_500);
    expect(shared).toEqual({ tpm: { limit: 1_500, windowMs: 60_000, capacity: 1_500, available: 400 } });
    // The shared dimension shows in every member under its name inside members.
    expect(members.a!.dimensions["project-tpm"]!.available).toBe(400);
    await g.close();
  });

  it("takes nothing from a member whose call the shared buckets cannot hold, and nothing shared the other way", async () => {
    const g = group({ models: { a: { tpm: 1_000 }, b: { tpm: 1_000 }, c: { tpm: 1_000 } }, shared: { tpm: 2_000 } });
    await g.for("a").acquire(700);
    await g.for("b").acquire(900);
    expect(g.for("c").tryAcquire(500)).toBeUndefined(); // the member has room, the shared budget not
    expect(g.for("b").tryAcquire(200)).toBeUndefined(); // the shared budget has room, the member not
    const { members, shared } = g.snapshot();
    expect(members.c!.dimensions.tpm!.available).toBe(1_000);
    expect(members.b!.dimensions.tpm!.available).toBe(100);
    expect(shared.tpm!.available).toBe(400);
    await g.close();
  });

  it("serves the shared buckets in one FIFO across members: a large call is not overtaken there", async () => {
    // 1,000 shared tokens a minute: 1 token every 60 ms.
    const g = group({ models: { a: { tpm: 10_000 }, b: { tpm: 10_000 } }, shared: { tpm: 1_000 } });
    const log: [string, number][] = [];
    await g.for("a").acquire(800);
    const large = track(g.for("a").acquire(900), log, "a:900"); // waits for 700 more: 42 s
    await time.at(1);
    const small = track(g.for("b").acquire(100), log, "b:100"); // fits now, but would delay the large one
    await time.at(41_999);
    expect(log).toEqual([]);
    await time.at(42_000);
    expect(log).toEqual([["a:900", 42_000]]);
    await time.at(48_000);
    expect(log).toEqual([
      ["a:900", 42_000],
      ["b:100", 48_000],
    ]);
    await Promise.all([large, small]);
    await g.close();
  });

  it("keeps the turns of several members' heads in the order they began to wait", async () => {
    const g = group({ models: { a: { tpm: 10_000 }, b: { tpm: 10_000 }, c: { tpm: 10_000 } }, shared: { tpm: 1_000 } });
    const log: [string, number][] = [];
    await g.for("a").acquire(1_000);
    const calls = [track(g.for("a").acquire(900), log, "a:900")];
    await time.at(1);
    calls.push(track(g.for("b").acquire(500), log, "b:500"));
    await time.at(2);
    calls.push(track(g.for("c").acquire(100), log, "c:100"));
    await time.at(100_000);
    await Promise.all(calls);
    expect(log).toEqual([
      ["a:900", 54_000],
      ["b:500", 84_000],
      ["c:100", 90_000],
    ]);
    await g.close();
  });

  it("lets other members use the shared room a head waiting on its own budget does not need in time", async () => {
    // a's head waits 48 s for its own tpm; the shared budget (100 a second) holds b's call and it by then.
    const g = group({ models: { a: { tpm: 1_000 }, b: { tpm: 10_000 } }, shared: { tpm: 6_000 } });
    const log: [string, number][] = [];
    await g.for("a").acquire(900);
    await g.for("b").acquire(5_000);
    const waiting = track(g.for("a").acquire(900), log, "a:900"); // own tpm: 800 short, 48 s
    const b = track(g.for("b").acquire(1_000), log, "b:1000"); // shared: 100 left, 900 short, 9 s
    await time.at(9_000);
    expect(log).toEqual([["b:1000", 9_000]]);
    await time.at(48_000);
    expect(log).toEqual([
      ["b:1000", 9_000],
      ["a:900", 48_000],
    ]);
    await Promise.all([waiting, b]);
    await g.close();
  });

  it("moves the next member's call once the older head's turn ends (aborted)", async () => {
    const g = group({ models: { a: { tpm: 10_000 }, b: { tpm: 10_000 } }, shared: { tpm: 1_000 } });
    const log: [string, number][] = [];
    await g.for("a").acquire(800);
    const controller = new AbortController();
    const large = g.for("a").acquire(900, { signal: controller.signal });
    await time.at(1);
    const small = track(g.for("b").acquire(100), log, "b:100");
    await time.at(1_000);
    expect(log).toEqual([]);
    controller.abort(new Error("gone"));
    await expect(large).rejects.toThrow("gone");
    await time.at(1_000);
    expect(log).toEqual([["b:100", 1_000]]);
    await small;
    await g.close();
  });

  it("applies maxQueue to each member", async () => {
    const g = group({ models: { a: { rpm: 1 }, b: { rpm: 1 } }, maxQueue: 1 });
    await g.for("a").acquire(0);
    const queued = g.for("a").acquire(0);
    await expect(g.for("a").acquire(0)).rejects.toMatchObject({ code: "QUEUE_FULL" });
    await g.for("b").acquire(0);
    const queuedB = g.for("b").acquire(0);
    await g.close();
    await expect(queued).rejects.toMatchObject({ code: "LIMITER_CLOSED" });
    await expect(queuedB).rejects.toMatchObject({ code: "LIMITER_CLOSED" });
  });

  it("runs on a member and resolves onIdle once every member is idle", async () => {
    const g = group({ models: { a: { rpm: 60 }, b: { rpm: 60 } } });
    let idle = false;
    const held = await g.for("b").acquire(0);
    const value = await g.run("a", 0, () => ({ value: 42 }));
    expect(value).toBe(42);
    const done = g.onIdle().then(() => (idle = true));
    await time.at(10);
    expect(idle).toBe(false);
    held.release();
    await done;
    expect(idle).toBe(true);
    await g.close();
    await expect(g.run("a", 0, () => ({ value: 1 }))).rejects.toMatchObject({ code: "LIMITER_CLOSED" });
  });
});
