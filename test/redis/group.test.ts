import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { LimiterGroup, WaitTimeoutError, type LimiterGroupOptions, type Reservation } from "../../src/index.js";
import { RedisGroupStore } from "../../src/redis/index.js";
import { ADAPTER_NAMES, ADAPTERS, describeRedis, rawRedis, redisUrl, timed, type Connection } from "./helpers.js";

/** A day's window: what refills while a test runs is a few hundredths of a unit. */
const DAY_MS = 86_400_000;

/** Two models on OpenAI and the project's tokens per minute, for header sync. */
const PROJECT = {
  models: { a: { tpm: 10_000 }, b: { tpm: 10_000 } },
  shared: { tpm: 20_000 },
  provider: "openai" as const,
};

describeRedis.each(ADAPTER_NAMES)("LimiterGroup on a RedisGroupStore (%s)", (adapter) => {
  const raw = rawRedis();
  const connections: Connection[] = [];
  afterAll(() => Promise.all(connections.map((connection) => connection.close())));

  /** `count` groups on the same key, each on a connection of its own: as many processes. */
  async function groups(
    count: number,
    options: Omit<LimiterGroupOptions, "store">,
    key = `test:${randomUUID()}`,
  ): Promise<LimiterGroup[]> {
    const made = await Promise.all(Array.from({ length: count }, () => ADAPTERS[adapter](redisUrl!)));
    connections.push(...made);
    return made.map(
      ({ client }) => new LimiterGroup({ initial: "full", ...options, store: new RedisGroupStore({ client, key }) }),
    );
  }

  /** The level stored for `field` (a member's `"a"/tpd`, a shared `project-tpd`), not refilled. */
  async function stored(key: string, field: string): Promise<number> {
    return Number(await raw.hget(`{${key}}:b`, `${field}:l`));
  }

  it("admits across processes no more than the shared budget, nor on any member more than its own", async () => {
    const call = fc.record({ process: fc.integer({ min: 0, max: 1 }), member: fc.constantFrom("a", "b") });
    const calls = fc.array(fc.record({ at: call, cost: fc.integer({ min: 1, max: 800 }) }), {
      minLength: 20,
      maxLength: 40,
    });
    await fc.assert(
      fc.asyncProperty(calls, async (calls) => {
        const both = await groups(2, { models: { a: { tpd: 3_000 }, b: { tpd: 3_000 } }, shared: { tpd: 5_000 } });
        const admitted: { member: string; cost: number }[] = [];
        const { ms } = await timed(() =>
          Promise.all(
            calls.map(async ({ at, cost }) => {
              try {
                const reservation = await both[at.process]!.for(at.member).acquire(cost, { maxWaitMs: 0 });
                admitted.push({ member: at.member, cost });
                reservation.release();
              } catch (error) {
                expect(error).toBeInstanceOf(WaitTimeoutError);
              }
            }),
          ),
        );
        await Promise.all(both.map((group) => group.close()));
        // Replayed in admission order against buckets that refill no faster than a day's window allows.
        const slack = (limit: number): number => (ms * limit) / DAY_MS;
        let shared = 0;
        const own = new Map<string, number>();
        for (const { member, cost } of admitted) {
          shared += cost;
          own.set(member, (own.get(member) ?? 0) + cost);
          expect(shared).toBeLessThanOrEqual(5_000 + slack(5_000));
          expect(own.get(member)).toBeLessThanOrEqual(3_000 + slack(3_000));
        }
      }),
      { numRuns: 12 },
    );
  });

  it("binds each member's budget and the shared one across processes", async () => {
    const [one, two] = await groups(2, { models: { a: { tpd: 3_000 }, b: { tpd: 3_000 } }, shared: { tpd: 5_000 } });
    (await one!.for("a").acquire(3_000)).release();
    // a's own budget is spent in the other process too; the shared one still has 2,000.
    await expect(two!.for("a").acquire(1, { maxWaitMs: 0 })).rejects.toMatchObject({ dimension: "tpd" });
    (await two!.for("b").acquire(2_000)).release();
    // b has 1,000 of its own left, the project nothing.
    await expect(one!.for("b").acquire(1, { maxWaitMs: 0 })).rejects.toMatchObject({ dimension: "project-tpd" });
    await Promise.all([one!.close(), two!.close()]);
  });

  it("takes nothing from either side for a call that fits one and not the other", async () => {
    const key = `test:${randomUUID()}`;
    const [one, two] = await groups(
      2,
      { models: { a: { tpd: 10_000 }, b: { tpd: 1_000 } }, shared: { tpd: 1_000 } },
      key,
    );
    (await two!.for("b").acquire(600)).release();
    // Fits a's own budget, not the shared one's 400.
    await expect(one!.for("a").acquire(600, { maxWaitMs: 0 })).rejects.toBeInstanceOf(WaitTimeoutError);
    // Fits the shared 400, not b's own 400.
    await expect(one!.for("b").acquire(400.5, { maxWaitMs: 0 })).rejects.toBeInstanceOf(WaitTimeoutError);
    // close() waits for the bookings given back.
    await Promise.all([one!.close(), two!.close()]);
    expect(await stored(key, '"a"/tpd')).toBeCloseTo(10_000, 0);
    expect(await stored(key, '"b"/tpd')).toBeCloseTo(400, 0);
    expect(await stored(key, "project-tpd")).toBeCloseTo(400, 0);
  });

  it("serves a large call waiting on a shared dimension before other members' later small calls", async () => {
    const key = `test:${randomUUID()}`;
    const shared = { limits: { tokens: { unit: "tokens" as const, limit: 1_000, windowMs: 1_000 } } };
    const [one, two] = await groups(2, { models: { a: { tpd: 100_000 }, b: { tpd: 100_000 } }, shared }, key);
    (await two!.for("b").acquire(1_000)).release();
    const order: string[] = [];
    const large = one!
      .for("a")
      .acquire(800)
      .then((r) => (order.push("a"), r));
    // a's booking is in Redis before b's small calls arrive.
    while (Number(await raw.hget(`{${key}}:b`, "project-tokens:a")) < 1_800);
    const small = Array.from({ length: 4 }, () =>
      two!
        .for("b")
        .acquire(200)
        .then((r) => (order.push("b"), r)),
    );
    const reservations: Reservation[] = await Promise.all([large, ...small]);
    // Without one order on the shared bucket, b's first 200 would fit after 200 ms and go first.
    expect(order).toEqual(["a", "b", "b", "b", "b"]);
    reservations.forEach((r) => r.release());
    await Promise.all([one!.close(), two!.close()]);
  });

  it("lands project-scoped headers on the shared dimension in Redis, for every process", async () => {
    const [one, two] = await groups(2, PROJECT);
    const { ms } = await timed(async () => {
      one!.for("a").sync({
        "x-ratelimit-limit-tokens": "10000",
        "x-ratelimit-remaining-tokens": "4000",
        "x-ratelimit-reset-tokens": "36s",
        "x-ratelimit-limit-project-tokens": "20000",
        "x-ratelimit-remaining-project-tokens": "7000",
        "x-ratelimit-reset-project-tokens": "39s",
      });
      await one!.close(); // the syncs are written
      (await two!.for("b").acquire(100)).release();
      (await two!.for("a").acquire(100)).release();
    });
    const refill = (ms * 20_000) / 60_000;
    const { members, shared } = two!.snapshot();
    // The other process's booking saw the project's 7,000 (less its two calls), and a's own 4,000.
    expect(shared.tpm!.available).toBeGreaterThanOrEqual(6_800);
    expect(shared.tpm!.available).toBeLessThanOrEqual(6_800 + refill);
    expect(members.a!.dimensions.tpm!.available).toBeGreaterThanOrEqual(3_900);
    expect(members.a!.dimensions.tpm!.available).toBeLessThanOrEqual(3_900 + refill);
    expect(members.b!.dimensions.tpm!.available).toBeGreaterThanOrEqual(9_900 - 1);
    await two!.close();
  });

  it("discounts every member's bookings in every process after a request whose response syncs the shared level", async () => {
    const [one, two] = await groups(2, PROJECT);
    const { ms } = await timed(async () => {
      const first = await one!.for("a").acquire(1_000);
      // Booked after `first`, in another process: first's headers may not count it.
      (await two!.for("b").acquire(2_000)).release();
      first.sync({
        "x-ratelimit-limit-project-tokens": "20000",
        "x-ratelimit-remaining-project-tokens": "6000",
        "x-ratelimit-reset-project-tokens": "42s",
      });
      first.release();
      await one!.close();
      (await two!.for("b").acquire(1)).release();
    });
    const refill = (ms * 20_000) / 60_000;
    // b's view: the level its latest booking brought back, and any credit it booked with it (which the store
    // has drawn, and b may still admit).
    const { available } = two!.for("b").snapshot().dimensions["project-tpm"]!;
    expect(available).toBeGreaterThanOrEqual(6_000 - 2_000 - 1);
    expect(available).toBeLessThanOrEqual(6_000 - 2_000 - 1 + 2 * refill);
    await two!.close();
  });

  it("writes a member's settles when it is evicted and when the group closes", async () => {
    const key = `test:${randomUUID()}`;
    const [group] = await groups(1, { default: { tpd: 10_000 }, maxMembers: 1 }, key);
    const held = await group!.for("x").acquire(1_000);
    expect(() => group!.for("y")).toThrow(RangeError); // x is busy: no room
    held.settle(100);
    held.release();
    group!.for("y"); // evicts x, closing it: its refund of 900 is written
    (await group!.for("x").acquire(1)).release();
    expect(group!.snapshot().members.x!.dimensions.tpd!.available).toBe(10_000 - 101);

    const last = await group!.for("x").acquire(1_000);
    last.settle(0);
    last.release();
    await group!.close();
    expect(await stored(key, '"x"/tpd')).toBeCloseTo(10_000 - 101, 0);
  });

  it("keeps each member's concurrency its own, across processes", async () => {
    const [one, two] = await groups(2, {
      models: { a: { concurrency: 1 }, b: { concurrency: 1 } },
      shared: { tpd: 1_000 },
    });
    const a = await one!.for("a").acquire(1);
    await expect(two!.for("a").acquire(1, { maxWaitMs: 50 })).rejects.toBeInstanceOf(WaitTimeoutError);
    const b = await two!.for("b").acquire(1);
    a.release();
    b.release();
    (await two!.for("a").acquire(1)).release();
    await Promise.all([one!.close(), two!.close()]);
  });

  it("runs runAny on the member whose levels admit soonest", async () => {
    const [group] = await groups(1, { models: { a: { tpd: 1_000 }, b: { tpd: 1_000 } }, shared: { tpd: 10_000 } });
    (await group!.for("a").acquire(900)).release();
    const ran = await group!.runAny(["a", "b"], 500, (_, name) => ({ value: name }));
    expect(ran).toBe("b");
    await group!.close();
  });
});
