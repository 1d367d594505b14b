/**
 * A booking for later comes due sooner than `book` said when refunds (or
 * bookings given back) cover it: `dueIn` tells, and a waiting limiter asks it
 * every DUE_POLL_MS, so the room goes to the oldest booking rather than to
 * whichever process books next.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore } from "../../src/redis/index.js";
import { ADAPTERS, describeRedis, rawRedis, redisUrl, storeFactory, timed } from "./helpers.js";
import { dim, layout } from "./layouts.js";

// 600 tokens a minute: 10 a second, so a deficit of 100 is 10 s away.
const tpm = layout([dim("rpm", 1_000), dim("tpm", 600)]);

describeRedis("when a booking for later is due", () => {
  const store = storeFactory("ioredis");
  const raw = rawRedis();

  it("says what is left of the wait, and 0 once a refund covers the booking", async () => {
    const s = await store();
    expect((await s.book(tpm, [[1, 600]])).admitted).toBe(1);
    const later = await s.book(tpm, [[1, 100]]);
    expect(later).toMatchObject({ booked: true, dimension: "tpm" });
    const marks = later.marks[0]!;
    const left = await s.dueIn(tpm, marks);
    expect(left).toBeGreaterThan(9_000);
    expect(left).toBeLessThanOrEqual(later.waitMs);
    // Bookings after it do not delay it; a refund to the first call covers it.
    await s.book(tpm, [[1, 300]]);
    expect(await s.dueIn(tpm, marks)).toBeGreaterThan(9_000);
    await s.adjust(tpm, [0, 150]);
    expect(await s.dueIn(tpm, marks)).toBe(0);
    // A dimension it costs nothing on is not asked about; a pause on one it costs something on holds it.
    expect(await s.dueIn(tpm, [undefined, marks[1]])).toBe(0);
    await s.pause(tpm, [1], 30_000);
    expect(await s.dueIn(tpm, marks)).toBeGreaterThan(29_000);
    expect(await s.dueIn(tpm, [marks[0], undefined])).toBe(0);
  });

  it("moves the caller's field in the demand hash to when it now books", async () => {
    const key = `due:${randomUUID()}`;
    const s = await store({ key });
    await s.book(tpm, [[1, 600]], true);
    const later = await s.book(tpm, [[1, 100]], true);
    const backOf = async (): Promise<number> =>
      Number(Object.values(await raw.hgetall(`{${key}}:d`))[0]!.split(" ")[1]);
    const [seconds] = await raw.time();
    expect((await backOf()) - Number(seconds) * 1_000).toBeGreaterThan(9_000);
    await s.adjust(tpm, [0, 200]);
    expect(await s.dueIn(tpm, later.marks[0]!)).toBe(0);
    const [after] = await raw.time();
    expect((await backOf()) - Number(after) * 1_000).toBeLessThanOrEqual(1_000);
  });

  it(
    "admits a waiting booking once refunds cover it, long before the time it was booked for",
    { timeout: 10_000 },
    async () => {
      const connection = await ADAPTERS.ioredis(redisUrl!);
      const limiter = new Limiter({
        limits: { tokens: { unit: "tokens", limit: 600, windowMs: 60_000 } },
        store: new RedisStore({ client: connection.client, key: `due:${randomUUID()}` }),
      });
      try {
        const first = await limiter.acquire(600);
        const second = limiter.acquire(100); // booked for 10 s from now
        await new Promise((resolve) => setTimeout(resolve, 50));
        const { ms } = await timed(async () => {
          first.settle(300); // 300 back
          (await second).release();
        });
        expect(ms).toBeLessThan(2_000);
        first.release();
      } finally {
        await limiter.close();
        await connection.close();
      }
    },
  );
});
