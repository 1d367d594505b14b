import { createHash, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore, StoreReplyError } from "../../src/redis/index.js";
import { LAYOUT_VERSION } from "../../src/redis/scripts/lua.js";
import { bookOne } from "./book-one.js";
import { ADAPTERS, describeRedis, rawRedis, redisUrl, storeFactory } from "./helpers.js";
import { LAYOUT_1, oldAdjust, oldBook, oldPause } from "./layout-1.js";
import { dim, layout } from "./layouts.js";

const DAY = 86_400_000;
/** Per day: the refill while a test runs stays far below the tolerances. */
const both = layout([dim("rpd", 100, DAY), dim("tpd", 10_000, DAY)]);

describe("the 0.1.0 scripts, frozen", () => {
  it.each(Object.entries(LAYOUT_1))("%s: the fixture is the script 0.1.0 pinned", (_, script) => {
    expect(createHash("sha1").update(script.source).digest("hex")).toBe(script.sha1);
  });

  it("this version's layout is 1: 0.1.0's fields, with a version and an expiry 0.1.0 ignores", () => {
    expect(LAYOUT_VERSION).toBe(1);
  });
});

describeRedis("a rolling deploy from 0.1.0: both versions share one state", () => {
  const raw = rawRedis();
  const store = storeFactory("ioredis");
  const fresh = async (): Promise<{ key: string; hash: string; s: RedisStore }> => {
    const key = `deploy:${randomUUID()}`;
    return { key, hash: `{${key}}:b`, s: await store({ key }) };
  };

  it("reads a hash 0.1.0 wrote (no version) as layout 1, and stamps the version on its first write", async () => {
    const { key, hash, s } = await fresh();
    await oldBook(raw, key, both, [1, 100]);
    await oldAdjust(raw, key, both, [0, 40]);
    await oldPause(raw, key, 60_000, ["tpd"]);
    expect(await raw.hget(hash, "v")).toBeNull();

    const next = await bookOne(s, both, [1, 100]);
    // The totals 0.1.0 booked go on, its refund is in the level, its pause binds.
    expect(next).toMatchObject({ booked: true, dimension: "tpd", marks: [2, 200] });
    expect(next.waitMs).toBeGreaterThan(59_000);
    expect(next.waitMs).toBeLessThanOrEqual(60_000);
    expect(next.levels[0]).toBeCloseTo(98, 1);
    expect(next.levels[1]).toBeCloseTo(9_840, 0);
    expect(await raw.hget(hash, "v")).toBe(String(LAYOUT_VERSION));
  });

  it("is read by 0.1.0 as it wrote it: the same levels, totals and pauses, v and x ignored", async () => {
    const { key, hash, s } = await fresh();
    await bookOne(s, both, [1, 100]);
    await s.adjust(both, [0, 40]);
    await s.pause(both, [1], 60_000);
    const ttl = await raw.pttl(hash);

    const old = await oldBook(raw, key, both, [1, 100]);
    expect(old).toMatchObject({ admitted: false, booked: true, marks: [2, 200] });
    expect(old.waitMs).toBeGreaterThan(59_000);
    expect(old.levels[0]).toBeCloseTo(98, 1);
    expect(old.levels[1]).toBeCloseTo(9_840, 0);
    // 0.1.0 lengthens a TTL or leaves it; it never takes the fields this version added.
    expect(await raw.pttl(hash)).toBeGreaterThan(ttl - 1_000);
    expect(await raw.hget(hash, "v")).toBe(String(LAYOUT_VERSION));

    // And back: each version's bookings count in the other's marks.
    expect((await bookOne(s, both, [0, 100])).marks).toEqual([2, 300]);
    expect((await oldBook(raw, key, both, [0, 100])).marks).toEqual([2, 400]);
  });

  it("keeps the hash's expiry in field x: the TTL grows only when the state must live longer", async () => {
    const { hash, s } = await fresh();
    await bookOne(s, both, [1, 100]);
    const expiry = Number(await raw.hget(hash, "x"));
    // Whole milliseconds: cheaper for the scripts to write and to read back.
    expect(Number.isInteger(expiry)).toBe(true);
    const ttl = await raw.pttl(hash);
    // Full again in about 86 s (1 of 100 a day), then a day; and an eighth more.
    expect(ttl).toBeGreaterThan(DAY);
    expect(ttl).toBeLessThanOrEqual(Math.ceil(((864_000 + DAY) * 9) / 8));
    await bookOne(s, both, [1, 100]);
    expect(Number(await raw.hget(hash, "x"))).toBe(expiry);
    expect(await raw.pttl(hash)).toBeLessThanOrEqual(ttl);

    // Deep in debt, the state must outlive x: the TTL and x grow together.
    await bookOne(s, both, [0, 30_000]);
    const longer = await raw.pttl(hash);
    expect(longer).toBeGreaterThan(3 * DAY);
    expect(Number(await raw.hget(hash, "x"))).toBeGreaterThan(expiry + 2 * DAY);

    // A TTL longer than needed (as 0.1.0, which does not keep x, may leave one) is never shortened.
    await raw.hdel(hash, "x");
    await raw.pexpire(hash, 30 * DAY);
    await bookOne(s, both, [1, 1]);
    expect(await raw.pttl(hash)).toBeGreaterThan(29 * DAY);
    expect(Number(await raw.hget(hash, "x"))).toBeGreaterThan(Date.now() + 29 * DAY);
  });
});

describeRedis("a hash of a later layout", () => {
  const raw = rawRedis();
  const store = storeFactory("ioredis");
  const leased = layout([dim("rpd", 100, DAY), dim("tpd", 10_000, DAY)], { concurrency: 4 });

  /** A key in use (a booking, a lease) that a later version has stamped with layout 2. */
  async function later(): Promise<{ key: string; s: RedisStore; lease: string }> {
    const key = `later:${randomUUID()}`;
    const s = await store({ key });
    const { lease } = await bookOne(s, leased, [1, 100]);
    await raw.hset(`{${key}}:b`, "v", "2", "tpd:q", "a field layout 1 does not know");
    return { key, s, lease: lease! };
  }

  const snapshot = async (key: string) => ({
    hash: await raw.hgetall(`{${key}}:b`),
    leases: await raw.zrange(`{${key}}:c`, 0, -1, "WITHSCORES"),
  });

  it("is refused by every script with a LAYOUT reply (StoreReplyError), and left as it was", async () => {
    const { key, s, lease } = await later();
    const before = await snapshot(key);
    const ttl = await raw.pttl(`{${key}}:b`);
    const calls: Record<string, () => Promise<unknown>> = {
      book: () => s.book(leased, [[1, 100]]),
      levels: () => s.book(leased, []),
      lease: () => s.lease(leased),
      adjust: () => s.adjust(leased, [1, 50]),
      lower: () => s.lower(leased, 1, 10, undefined),
      pause: () => s.pause(leased, undefined, 60_000),
      renew: () => s.renew([lease]),
      release: () => s.release(lease),
    };
    for (const [name, call] of Object.entries(calls)) {
      const error = await call().then(
        () => new Error(`${name} went through`),
        (e: unknown) => e,
      );
      expect(error, name).toBeInstanceOf(StoreReplyError);
      expect(error, name).toMatchObject({ code: "STORE_REPLY", replyCode: "LAYOUT" });
      expect((error as StoreReplyError).reply, name).toMatch(/holds the store layout 2, which this version/);
    }
    expect(await snapshot(key)).toEqual(before);
    expect(await raw.pttl(`{${key}}:b`)).toBeLessThanOrEqual(ttl);
  });

  it.each(["fail-open", "fail-closed"] as const)(
    "%s: a limiter on it rejects its calls at once with that error, admitting none unmetered",
    async (onError) => {
      const { key } = await later();
      const connection = await ADAPTERS.ioredis(redisUrl!);
      try {
        const limiter = new Limiter({
          rpd: 100,
          tpd: 10_000,
          store: new RedisStore({ client: connection.client, key, onError }),
          onWarning: () => {},
        });
        const start = performance.now();
        const outcomes = await Promise.all(
          Array.from({ length: 3 }, () =>
            limiter.acquire(10).then(
              () => "admitted",
              (e: unknown) => e,
            ),
          ),
        );
        expect(performance.now() - start).toBeLessThan(1_000);
        for (const outcome of outcomes) expect(outcome).toMatchObject({ replyCode: "LAYOUT" });
        await limiter.close();
      } finally {
        await connection.close();
      }
    },
  );
});
