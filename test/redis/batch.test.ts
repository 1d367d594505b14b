import { expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore } from "../../src/redis/index.js";
import { ADAPTERS, ADAPTER_NAMES, counting, describeRedis, levels, redisUrl, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";

describeRedis.each(ADAPTER_NAMES)("book a batch (%s)", (adapter) => {
  const store = storeFactory(adapter);

  it("admits the requests that fit, in order, each with its marks and lease", async () => {
    const s = await store();
    const shape = layout([dim("rpm", 10), dim("tpm", 1_000)], { concurrency: 5 });
    const booking = await s.book(shape, [
      [1, 100],
      [1, 0.1],
      [1, 200],
    ]);
    expect(booking).toMatchObject({ admitted: 3, booked: false, waitMs: 0, dimension: undefined });
    expect(booking.marks).toEqual([
      [1, 100],
      [2, 100.1],
      [3, 300.1],
    ]);
    expect(booking.levels).toEqual([7, 1_000 - 300.1]);
    expect(new Set(booking.leases).size).toBe(3);
    // Marks continue from what earlier calls booked.
    expect((await s.book(shape, [[1, 1]])).marks).toEqual([[4, 301.1]]);
  });

  it("books the first request that lacks room for later, and takes nothing after it", async () => {
    const s = await store();
    const rpm = layout([dim("rpm", 2)]);
    const booking = await s.book(rpm, [[1], [1], [1], [1]]);
    expect(booking).toMatchObject({ admitted: 2, booked: true, dimension: "rpm", leases: [], marks: [[1], [2], [3]] });
    expect(booking.waitMs).toBeGreaterThan(29_000);
    expect(booking.waitMs).toBeLessThanOrEqual(30_000);
    expect((await levels(s, rpm))[0]).toBeLessThan(-0.99);
  });

  it("stops at the first request that finds no concurrency slot, taking nothing for it", async () => {
    const s = await store({ leaseMs: 5_000 });
    const shape = layout([dim("rpm", 100)], { concurrency: 2 });
    const booking = await s.book(shape, [[1], [1], [1]]);
    expect(booking).toMatchObject({ admitted: 2, booked: false, dimension: "concurrency", marks: [[1], [2]] });
    expect(booking.leases).toHaveLength(2);
    expect(booking.waitMs).toBeGreaterThan(4_000);
    expect(booking.levels).toEqual([98]);
  });
});

it.skipIf(redisUrl === undefined)(
  "a limiter admits every waiter queued in one tick with one round trip, in FIFO order",
  async () => {
    const connection = await ADAPTERS.ioredis(redisUrl!);
    try {
      const client = counting(connection.client);
      const limiter = new Limiter({
        rpm: 1_000,
        tpm: 1_000_000,
        store: new RedisStore({ client, key: `batch:${Math.random()}` }),
      });
      const order: number[] = [];
      const admitted = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          limiter.acquire(100).then((r) => {
            order.push(i);
            return r;
          }),
        ),
      );
      expect(client.calls).toBe(1);
      expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(limiter.snapshot()).toMatchObject({
        dimensions: { rpm: { available: 960 }, tpm: { available: 996_000 } },
      });
      for (const r of admitted) r.release();
      limiter.close();
    } finally {
      await connection.close();
    }
  },
);
