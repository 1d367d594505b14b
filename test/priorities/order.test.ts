import { describe, expect, it } from "vitest";
import { Limiter, type Reservation } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();
const CLASSES = ["interactive", "default", "background"];

/** Records the order in which calls are admitted (those refused when the limiter closes are not). */
function recorder(): { order: string[]; track: (name: string, admitted: Promise<Reservation>) => void } {
  const order: string[] = [];
  const track = (name: string, admitted: Promise<Reservation>): void =>
    void admitted.then(
      () => order.push(name),
      () => {},
    );
  return { order, track };
}

describe("priority classes", () => {
  it("admit the waiters of a more urgent class first, whatever the arrival order", async () => {
    // 600 tokens a minute: 10 per second.
    const limiter = new Limiter({ tpm: 600, priorities: CLASSES, initial: "empty", clock: time.clock });
    const { order, track } = recorder();
    track("background 1", limiter.acquire(100, { priority: "background" }));
    track("default 1", limiter.acquire(100));
    track("background 2", limiter.acquire(100, { priority: "background" }));
    track("interactive 1", limiter.acquire(100, { priority: "interactive" }));
    track("default 2", limiter.acquire(100, { priority: "default" }));
    await time.at(10_000 * 5 + 1);
    expect(order).toEqual(["interactive 1", "default 1", "default 2", "background 1", "background 2"]);
  });

  it('take defaultPriority, else "default" when declared, else the last class', async () => {
    const cases: [object, string][] = [
      [{ priorities: CLASSES }, "default"],
      [{ priorities: ["high", "low"] }, "low"],
      [{ priorities: CLASSES, defaultPriority: "interactive" }, "interactive"],
    ];
    for (const [options, expected] of cases) {
      const limiter = new Limiter({ tpm: 600, initial: "empty", clock: time.clock, ...options });
      const { order, track } = recorder();
      const classes = (options as { priorities: string[] }).priorities;
      // One waiter per class, least urgent first, then one without a priority: it goes right after its class's.
      for (const name of [...classes].reverse()) track(name, limiter.acquire(10, { priority: name }));
      track("unnamed", limiter.acquire(10));
      await time.at(time.clock.now() + 10_000);
      expect(order[order.indexOf(expected) + 1]).toBe("unnamed");
      await limiter.close();
    }
  });

  it("admit an urgent call at once while less urgent ones wait for room it has", async () => {
    const limiter = new Limiter({ tpm: 1_000, priorities: CLASSES, initial: 0.5, clock: time.clock });
    // A background call too large for the level waits; a small interactive one fits and is not held behind it.
    const big = limiter.acquire(800, { priority: "background" });
    const small = await limiter.acquire(100, { priority: "interactive" });
    expect(small).toBeDefined();
    expect(limiter.snapshot().queued).toBe(1);
    // A default call is more urgent than the background one too.
    (await limiter.acquire(100, { priority: "default" })).release();
    // A second background call waits behind the first.
    const behind = limiter.acquire(10, { priority: "background" });
    expect(limiter.snapshot().queued).toBe(2);
    await limiter.close();
    await expect(big).rejects.toThrow();
    await expect(behind).rejects.toThrow();
  });

  it("keep a class's retry at the head of its class, behind more urgent waiters", async () => {
    const limiter = new Limiter({ tpm: 600, priorities: CLASSES, initial: "full", clock: time.clock });
    const { order, track } = recorder();
    let attempts = 0;
    const retried = limiter.run(
      100,
      () => {
        attempts++;
        if (attempts === 1) throw Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "1" } });
        order.push("background retry");
        return { value: "done" };
      },
      { priority: "background", retry: { attempts: 1 } },
    );
    // The 429 pauses admission for its hint (1 s); meanwhile one background and one interactive call queue.
    await time.at(1);
    track("background later", limiter.acquire(100, { priority: "background" }));
    track("interactive", limiter.acquire(100, { priority: "interactive" }));
    await time.at(60_000);
    await expect(retried).resolves.toBe("done");
    expect(order).toEqual(["interactive", "background retry", "background later"]);
  });
});

describe("headroom", () => {
  it("keeps a class off the last part of every bucket, and lets it have the whole rate alone", async () => {
    // 6,000 tokens a minute (100 per second), 60 requests a minute; background keeps off the last 20% of each.
    const limiter = new Limiter({
      tpm: 6_000,
      rpm: 60,
      priorities: CLASSES,
      headroom: { background: 0.2 },
      initial: "full",
      arrivalDelayMs: 0,
      clock: time.clock,
    });
    const admittedAt: number[] = [];
    const calls = Array.from({ length: 20 }, () =>
      limiter.acquire(400, { priority: "background" }).then((r) => {
        admittedAt.push(time.clock.now());
        r.release();
      }),
    );
    await time.at(0);
    // 12 of 400 leave 1,200 tokens: 20% of 6,000.
    expect(admittedAt).toHaveLength(12);
    expect(limiter.snapshot().dimensions.tpm!.available).toBe(1_200);
    // An interactive call finds the reserve at once.
    (await limiter.acquire(1_000, { priority: "interactive" })).release();
    expect(time.clock.now()).toBe(0);
    // Then background goes on at the whole refill rate: 400 tokens every 4 s, after the 1,000 are refilled.
    await time.at(60_000);
    await Promise.all(calls);
    const gaps = admittedAt.slice(13).map((at, i) => at - admittedAt[12 + i]!);
    expect(admittedAt[12]).toBeCloseTo(14_000, -1);
    for (const gap of gaps) expect(gap).toBeCloseTo(4_000, -1);
  });

  it("holds on every dimension: requests too", async () => {
    const limiter = new Limiter({
      rpm: 10,
      priorities: CLASSES,
      headroom: { background: 0.5 },
      initial: "full",
      clock: time.clock,
    });
    let admitted = 0;
    for (let i = 0; i < 10; i++) {
      void limiter.acquire(1, { priority: "background" }).then(
        () => admitted++,
        () => {},
      );
    }
    await time.at(0);
    expect(admitted).toBe(5);
    for (let i = 0; i < 5; i++) (await limiter.acquire(1, { priority: "interactive" })).release();
    expect(time.clock.now()).toBe(0);
    await limiter.close();
  });

  it("with tryAcquire, the default class's headroom holds", () => {
    const limiter = new Limiter({
      tpm: 1_000,
      priorities: ["now", "later"],
      headroom: { later: 0.5 },
      initial: "full",
      clock: time.clock,
    });
    expect(limiter.tryAcquire(400)).toBeDefined();
    expect(limiter.tryAcquire(400)).toBeUndefined();
  });
});

describe("tenants", () => {
  it("are not remembered when refused at once: a wait known too long leaves no lane behind", async () => {
    const limiter = new Limiter({ tpm: 600, priorities: CLASSES, initial: "empty", clock: time.clock });
    for (let i = 0; i < 100; i++) {
      // 60 s of refill at least, against a wait of at most 1 s.
      await expect(limiter.acquire(600, { tenant: `t${i}`, maxWaitMs: 1_000 })).rejects.toThrow(/wait/i);
    }
    // The scheduler's lanes are internal: reached by their path, to see that nothing was kept.
    const { queue } = (limiter as unknown as { admission: { queue: { bands: { tenants: Map<string, unknown> }[] } } })
      .admission;
    expect(queue.bands.map((band) => band.tenants.size)).toEqual([0, 0, 0]);
    await limiter.close();
  });

  it("share a class: one tenant's burst does not hold another's single call behind it", async () => {
    const limiter = new Limiter({ tpm: 600, priorities: CLASSES, initial: "empty", clock: time.clock });
    const { order, track } = recorder();
    for (let i = 0; i < 1_000; i++) track(`noisy ${i}`, limiter.acquire(10, { tenant: "noisy" }));
    track("quiet", limiter.acquire(10, { tenant: "quiet" }));
    // 10 tokens a second: the head of the burst, then the quiet tenant's call.
    await time.at(2_001);
    expect(order).toEqual(["noisy 0", "quiet"]);
    await limiter.close();
  });

  it("share by cost, FIFO within each tenant", async () => {
    const limiter = new Limiter({ tpm: 6_000, priorities: CLASSES, initial: "empty", clock: time.clock });
    const { order, track } = recorder();
    for (let i = 0; i < 10; i++) track(`small ${i}`, limiter.acquire(100, { tenant: "small" }));
    for (let i = 0; i < 3; i++) track(`large ${i}`, limiter.acquire(400, { tenant: "large" }));
    await time.at(60_000);
    // Tokens go to each tenant alike: after the heads of both, four small calls for each large one; each tenant's
    // calls in order.
    expect(order).toEqual([
      "small 0",
      "large 0",
      "small 1",
      "small 2",
      "small 3",
      "large 1",
      "small 4",
      "small 5",
      "small 6",
      "small 7",
      "large 2",
      "small 8",
      "small 9",
    ]);
  });

  it("count calls without a tenant as one more tenant", async () => {
    const limiter = new Limiter({ tpm: 600, initial: "empty", clock: time.clock });
    const { order, track } = recorder();
    for (let i = 0; i < 3; i++) track(`plain ${i}`, limiter.acquire(10));
    track("named", limiter.acquire(10, { tenant: "t" }));
    await time.at(4_001);
    expect(order).toEqual(["plain 0", "named", "plain 1", "plain 2"]);
  });

  it("do not overtake a large call at the head of its class", async () => {
    const limiter = new Limiter({ tpm: 600, initial: "empty", clock: time.clock });
    const { order, track } = recorder();
    track("large", limiter.acquire(500, { tenant: "a" }));
    for (let i = 0; i < 5; i++) track(`small ${i}`, limiter.acquire(10, { tenant: `t${i}` }));
    await time.at(49_999);
    expect(order).toEqual([]);
    await time.at(50_000);
    expect(order).toEqual(["large"]);
  });
});

describe("a tenant served less", () => {
  it("goes before the waiting head of a tenant served more, with no wait beyond its own refill", async () => {
    // 100 tokens a second.
    const limiter = new Limiter({ tpm: 6_000, initial: "empty", arrivalDelayMs: 0, clock: time.clock });
    const { order, track } = recorder();
    const times: number[] = [];
    const timed = (name: string, admitted: Promise<Reservation>): void =>
      track(
        name,
        admitted.then((reservation) => (times.push(time.clock.now()), reservation)),
      );
    for (let i = 0; i < 5; i++) timed(`noisy ${i}`, limiter.acquire(200, { tenant: "noisy" }));
    // noisy 0 at 2 s; at 3 s noisy 1 waits (100 of its 200 refilled) when a quiet call of 50 comes: it goes first, at
    // once; noisy 1 then at 4.5 s.
    await time.at(3_000);
    timed("quiet", limiter.acquire(50, { tenant: "quiet" }));
    await time.at(20_000);
    expect(order.slice(0, 3)).toEqual(["noisy 0", "quiet", "noisy 1"]);
    expect(times.slice(0, 3)).toEqual([2_000, 3_000, 4_500]);
    await limiter.close();
  });
});
