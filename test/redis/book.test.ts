import { expect, it } from "vitest";
import {
  ADAPTERS,
  ADAPTER_NAMES,
  describeRedis,
  levels,
  rawRedis,
  redisUrl,
  sleep,
  storeFactory,
  timed,
} from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { RedisStore } from "../../src/redis/index.js";
import { bookOne } from "./book-one.js";

describeRedis.each(ADAPTER_NAMES)("book (%s)", (adapter) => {
  const store = storeFactory(adapter);

  it("holds refill back for the arrival delay after a draw from a full bucket, not after one well below it", async () => {
    const s = await store();
    // 1 per 10 ms, arrivals up to 300 ms late.
    const rps = layout([dim("rps", 100, 1_000)], { arrivalDelayMs: 300 });
    const { value: held, ms } = await timed(async () => {
      await bookOne(s, rps, [100]);
      await sleep(150);
      // The draw of the whole bucket may not have reached the provider: no refill yet.
      return bookOne(s, rps, [10]);
    });
    expect(held.waitMs).toBeGreaterThanOrEqual(300 - ms + 100 - 1);
    expect(held.waitMs).toBeLessThanOrEqual(300 + 100);
    // Well below full, refill runs: 20 more cost 200 ms of refill past the booking above, no hold. Less the time
    // between the two scripts: within the reply's way back and this call's round trip (longer over HTTP).
    const { value: next, ms: trip } = await timed(() => bookOne(s, rps, [20]));
    expect(next.waitMs).toBeLessThanOrEqual(held.waitMs + 200 + 1);
    expect(next.waitMs).toBeGreaterThan(held.waitMs + 200 - Math.max(20, 2 * trip));
  });

  it("holds refill back the arrival delay more after a booking for later of nearly the whole bucket", async () => {
    const s = await store();
    const rps = layout([dim("rps", 100, 1_000)], { arrivalDelayMs: 300 });
    const { value: third, ms } = await timed(async () => {
      await bookOne(s, rps, [100]); // from full: no refill until 300 ms
      // Due after that hold and 1 s of refill, when the provider's bucket may be full: it arrives up to 300 ms later.
      await bookOne(s, rps, [100]);
      return bookOne(s, rps, [1]);
    });
    // Refill of 101 (1,010 ms) from 600 ms: without the second hold, from 300 ms.
    expect(third.waitMs).toBeGreaterThanOrEqual(600 + 1_010 - ms - 1e-6);
    expect(third.waitMs).toBeLessThanOrEqual(600 + 1_010 + 1e-6);
  });

  it("admits 100 at once at C = 100, 100/min, and books the 101st ~600 ms out", async () => {
    const s = await store();
    const rpm = layout([dim("rpm", 100)]);
    const { value: first, ms } = await timed(() =>
      Promise.all(Array.from({ length: 100 }, () => bookOne(s, rpm, [1]))),
    );
    expect(first.every((b) => b.booked && b.waitMs === 0 && b.dimension === undefined)).toBe(true);
    const { value: next, ms: more } = await timed(() => bookOne(s, rpm, [1]));
    // Refill while the calls ran (100/min = 1/600 per ms) can only shorten the wait. The calls are timed on this
    // process's clock and refilled on Redis', read apart: a millisecond either way (CI on Node 24 saw 0.96 ms).
    expect(next).toMatchObject({ booked: true, dimension: "rpm", lease: undefined, marks: [101] });
    expect(next.waitMs).toBeLessThanOrEqual(600 + 1e-6);
    expect(next.waitMs).toBeGreaterThanOrEqual(600 - ms - more - 1);
    expect(next.levels[0]).toBeCloseTo(-1 + (600 - next.waitMs) / 600, 9);
  });

  it("books in order: each later booking is due one refill interval after the one before", async () => {
    const s = await store();
    const rpm = layout([dim("rpm", 10)]);
    for (let i = 0; i < 10; i++) await bookOne(s, rpm, [1]);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) waits.push((await bookOne(s, rpm, [1])).waitMs);
    for (let i = 1; i < waits.length; i++) {
      // 6000 ms apart, less the refill between the two calls (well under a second).
      expect(waits[i]! - waits[i - 1]!).toBeGreaterThan(5_000);
      expect(waits[i]! - waits[i - 1]!).toBeLessThanOrEqual(6_000 + 1e-6);
    }
  });

  it("takes every dimension or the binding one's wait says when: all at once, never part", async () => {
    const s = await store();
    const both = layout([dim("rpm", 10), dim("tpm", 1_000)]);
    expect(await bookOne(s, both, [1, 1_000])).toMatchObject({ booked: true, waitMs: 0, marks: [1, 1_000] });
    const over = await bookOne(s, both, [1, 600]);
    // tpm lacks room: both costs are taken anyway (a booking), and tpm binds.
    expect(over).toMatchObject({ booked: true, dimension: "tpm", marks: [2, 1_600] });
    expect(over.waitMs).toBeGreaterThan(30_000);
    expect(over.waitMs).toBeLessThanOrEqual(36_000 + 1e-6);
    // rpm is drawn when the booking is due, 36 s on, when the provider's rpm bucket (9 now) has filled: the refill
    // past its capacity is lost there, so the level now is what leaves 10 - 1 then.
    expect(over.levels[0]).toBeCloseTo(10 - 1 - (over.waitMs * 10) / 60_000, 2);
    expect(over.levels[1]).toBeLessThan(-599);
  });

  it("admits exactly the capacity when many processes race for it", async () => {
    const shape = layout([dim("rpm", 20)]);
    const key = `race:${Math.random()}`;
    // Five connections, one key: the check and the take happen in one script, so no race admits extra.
    const stores = await Promise.all(Array.from({ length: 5 }, () => store({ key })));
    const bookings = await Promise.all(Array.from({ length: 60 }, (_, i) => bookOne(stores[i % 5]!, shape, [1])));
    expect(bookings.filter((b) => b.waitMs === 0)).toHaveLength(20);
    const waits = bookings
      .filter((b) => b.waitMs > 0)
      .map((b) => b.waitMs)
      .sort((a, b) => a - b);
    expect(waits).toHaveLength(40);
    // Every booking has its own slot in time: 3000 ms apart at 20/min.
    for (let i = 1; i < waits.length; i++) expect(waits[i]! - waits[i - 1]!).toBeGreaterThan(2_500);
    expect(bookings.map((b) => b.marks![0]).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
  });

  it("treats a cost within float slack of the level as covered", async () => {
    const s = await store();
    const tpm = layout([dim("tpm", 0.3, 60_000, 0.3)]);
    // 0.1 + 0.2 > 0.3 in doubles: the slack admits it.
    expect(await bookOne(s, tpm, [0.1 + 0.2])).toMatchObject({ booked: true, waitMs: 0 });
  });

  it("keeps fractions: levels and marks come back as exact doubles", async () => {
    const s = await store();
    const tpm = layout([dim("tpm", 1_000_000, 86_400_000)]);
    const booking = await bookOne(s, tpm, [0.1]);
    expect(booking.marks).toEqual([0.1]);
    expect(booking.levels[0]).toBe(1_000_000 - 0.1);
  });

  it("starts a missing state at initialFraction of capacity", async () => {
    const s = await store();
    const half = layout([dim("rpm", 100)], { initialFraction: 0.5 });
    expect(await bookOne(s, half, [50])).toMatchObject({ booked: true, waitMs: 0 });
    const next = await bookOne(s, half, [1]);
    expect(next.dimension).toBe("rpm");
    expect(next.waitMs).toBeGreaterThan(500);
  });

  it("caps the level at a capacity lowered since", async () => {
    const s = await store();
    await bookOne(s, layout([dim("rpm", 100)]), [0]);
    expect(await levels(s, layout([dim("rpm", 100, 60_000, 30)]))).toEqual([30]);
  });

  it("books during a pause a positive cost only (paused-until binds)", async () => {
    const s = await store();
    const both = layout([dim("rpm", 100), dim("tpm", 1_000)]);
    await s.pause(both, [1], 2_000);
    const paused = await bookOne(s, both, [1, 10]);
    expect(paused).toMatchObject({ booked: true, dimension: "tpm", marks: [1, 10] });
    expect(paused.waitMs).toBeGreaterThan(1_500);
    expect(paused.waitMs).toBeLessThanOrEqual(2_000);
    expect(await bookOne(s, both, [1, 0])).toMatchObject({ booked: true, waitMs: 0 });
  });
});

describeRedis("keys", () => {
  const raw = rawRedis();
  const store = storeFactory("ioredis");

  it("shares one hash tag, and expires once idle (a state that expired starts at initialFraction)", async () => {
    const name = `ttl:${Math.random()}`;
    const s = await store({ key: name, leaseMs: 150 });
    const key = [`{${name}}:b`, `{${name}}:c`] as const;
    const fast = layout([dim("rps", 10, 100)], { initialFraction: 0.2, concurrency: 1 });
    const { value: ttl, ms } = await timed(async () => {
      expect((await bookOne(s, fast, [2])).lease).toBeDefined();
      return raw.pttl(key[0]);
    });
    // Level 0 of 10 at 10 per 100 ms: full again in 100 ms, then one window; and an eighth more.
    expect(ttl).toBeGreaterThanOrEqual(200 - ms - 1);
    expect(ttl).toBeLessThanOrEqual(225);
    expect(await raw.zcard(key[1])).toBe(1);
    expect(await raw.pttl(key[1])).toBeLessThanOrEqual(150);
    expect(Object.keys(await raw.hgetall(key[0])).sort()).toEqual(["rps:a", "rps:l", "rps:t", "v", "x"]);
    await sleep(400);
    expect(await raw.exists(key[0], key[1])).toBe(0);
    const fresh = await bookOne(s, fast, [2]);
    expect(fresh).toMatchObject({ booked: true, waitMs: 0, marks: [2] });
    expect(fresh.levels).toEqual([0]);
  });

  it("keeps a state with pending bookings until they are due and the bucket is full", async () => {
    const name = `debt:${Math.random()}`;
    const s = await store({ key: name });
    const key = `{${name}}:b`;
    const rpm = layout([dim("rpm", 10)]);
    await bookOne(s, rpm, [30]);
    // Level -20 at 10/min: full again in 3 minutes, then a window.
    expect(await raw.pttl(key)).toBeGreaterThan(239_000);
  });
});

it.skipIf(redisUrl === undefined)("connects through either adapter to the same state", async () => {
  const [a, b] = await Promise.all([ADAPTERS.ioredis(redisUrl!), ADAPTERS["node-redis"](redisUrl!)]);
  try {
    const key = `both:${Math.random()}`;
    const shape = layout([dim("rpm", 5)]);
    await bookOne(new RedisStore({ client: a.client, key }), shape, [2]);
    expect((await bookOne(new RedisStore({ client: b.client, key }), shape, [1])).marks).toEqual([3]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
