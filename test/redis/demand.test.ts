/**
 * The booking script keeps processes that want more within a batch of each
 * other (see SharedStore.book): each store below stands for a process on the
 * key. A batch is an eighth of a bucket (15 of 120 here), so one request weighs 1/15.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { describeRedis, rawRedis, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";

const rpm = layout([dim("rpm", 120)]);
const requests = (n: number): number[][] => Array.from({ length: n }, () => [1]);

describeRedis("booking in step with other processes", () => {
  const store = storeFactory("ioredis");
  const raw = rawRedis();

  /** Two processes' stores on one fresh key. */
  async function pair() {
    const key = `demand:${randomUUID()}`;
    return { key, a: await store({ key }), b: await store({ key }) };
  }

  it("a process a batch ahead of one that wants more takes nothing until that one books", async () => {
    const { a, b } = await pair();
    expect((await a.book(rpm, requests(15), true)).admitted).toBe(15);
    // B joins a batch behind A (its first batch puts it level) and takes one request: A may be a batch past that.
    expect((await b.book(rpm, requests(1), true)).admitted).toBe(1);
    expect(await a.book(rpm, requests(15), true)).toMatchObject({ admitted: 1, booked: false, dimension: "fairness" });
    const refused = await a.book(rpm, requests(15), true);
    expect(refused).toMatchObject({ admitted: 0, booked: false, dimension: "fairness", marks: [] });
    expect(refused.waitMs).toBeGreaterThanOrEqual(1);
    expect(refused.waitMs).toBeLessThanOrEqual(50);
    // 17 taken; the refill since (2/s) is a small fraction of a request.
    expect(refused.levels[0]).toBeGreaterThanOrEqual(103);
    expect(refused.levels[0]).toBeLessThan(104);
    // Once B has taken its batch, A goes on, to a batch past it.
    expect((await b.book(rpm, requests(14), true)).admitted).toBe(14);
    expect((await a.book(rpm, requests(20), true)).admitted).toBe(14);
  });

  it("a process that wants no more holds nobody back, and neither does one alone", async () => {
    const { a, b } = await pair();
    expect((await b.book(rpm, requests(1), false)).admitted).toBe(1);
    for (let round = 0; round < 3; round++) expect((await a.book(rpm, requests(15), true)).admitted).toBe(15);
    // B wanted more, then said it wants no more: forgotten.
    expect((await b.book(rpm, requests(1), true)).admitted).toBe(1);
    expect((await b.book(rpm, requests(1), false)).admitted).toBe(1);
    expect((await a.book(rpm, requests(15), true)).admitted).toBe(15);
  });

  it("a batch stops short where it would pass the process behind by more than a batch", async () => {
    const { a, b } = await pair();
    expect((await a.book(rpm, requests(10), true)).admitted).toBe(10);
    // B joins a batch behind A's 10/15 and takes 5: at 0, so A may go to 1, 5 of the 20 it asks.
    expect((await b.book(rpm, requests(5), true)).admitted).toBe(5);
    const booking = await a.book(rpm, requests(20), true);
    expect(booking).toMatchObject({ admitted: 5, booked: false, dimension: "fairness" });
    expect(booking.marks).toHaveLength(5);
  });

  it("a process waiting for its booking to come due holds nobody back", async () => {
    const { a, b } = await pair();
    const tight = layout([dim("rpm", 8)]); // a batch is one request
    expect((await a.book(tight, requests(8), true)).admitted).toBe(8);
    expect(await b.book(tight, requests(1), true)).toMatchObject({ admitted: 0, booked: true, dimension: "rpm" });
    // A, two requests past B, still books: B will not book again before its booking is due.
    expect(await a.book(tight, requests(1), true)).toMatchObject({ booked: true, dimension: "rpm" });
    expect(await a.book(tight, requests(1), true)).toMatchObject({ booked: true, dimension: "rpm" });
  });

  it("a process stopped to let another catch up counts as due while it waits to book again", async () => {
    const key = `demand:${randomUUID()}`;
    const [a, c] = [await store({ key }), await store({ key })];
    expect((await a.book(rpm, requests(15), true)).admitted).toBe(15);
    expect((await c.book(rpm, requests(1), true)).admitted).toBe(1);
    // C's field as it would read had C said it would book 400 ms ago: A, stopped for it, waits the longest, 50 ms.
    const [cId, entry] = Object.entries(await raw.hgetall(`{${key}}:d`)).sort((x, y) => x[1].localeCompare(y[1]))[0]!;
    const [seconds, micros] = await raw.time();
    await raw.hset(
      `{${key}}:d`,
      cId,
      `${entry.split(" ")[0]} ${Number(seconds) * 1_000 + Number(micros) / 1_000 - 400}`,
    );
    const stopped = await a.book(rpm, requests(15), true);
    expect(stopped).toMatchObject({ admitted: 1, dimension: "fairness", waitMs: 50 });
    // C catches up with A, and may go a batch past A, not further, though A has not booked again yet.
    expect((await c.book(rpm, requests(15), true)).admitted).toBe(15);
    expect(await c.book(rpm, requests(30), true)).toMatchObject({ admitted: 15, dimension: "fairness" });
  });

  it("a process whose booking for later refunds covered holds back the others a batch past it", async () => {
    const { a, b } = await pair();
    const tight = layout([dim("rpm", 8)]); // a batch is one request
    expect((await a.book(tight, requests(8), true)).admitted).toBe(8);
    const later = await b.book(tight, requests(1), true);
    expect(later).toMatchObject({ admitted: 0, booked: true, dimension: "rpm" });
    // A refund of 3 covers B's booking (7.5 s away as booked) and leaves room for 2: A, level with B, takes one
    // and stops where it would pass B by more than a batch, though B has not yet heard that it is due.
    await a.adjust(tight, [3]);
    expect(await a.book(tight, requests(2), true)).toMatchObject({ admitted: 1, dimension: "fairness" });
    const held = await a.book(tight, requests(1), true);
    expect(held).toMatchObject({ admitted: 0, booked: false, dimension: "fairness" });
    // Until B's next question (every 50 ms) is due.
    expect(held.waitMs).toBeGreaterThanOrEqual(1);
    expect(held.waitMs).toBeLessThanOrEqual(50);
    // B asks, hears that it is due, and books on: then A goes on.
    expect(await b.dueIn(tight, later.marks[0]!)).toBe(0);
    expect((await b.book(tight, requests(1), true)).admitted).toBe(1);
    expect((await a.book(tight, requests(1), true)).booked).toBe(true);
  });

  it("a covered booking holds nobody back once its process has stopped asking whether it is due", async () => {
    const { key, a, b } = await pair();
    const tight = layout([dim("rpm", 8)]);
    expect((await a.book(tight, requests(8), true)).admitted).toBe(8);
    const later = await b.book(tight, requests(1), true);
    await a.adjust(tight, [3]);
    expect(await a.book(tight, requests(1), true)).toMatchObject({ admitted: 1 });
    // B's field as it would read had B last asked 300 ms ago (it crashed, or its waiter left).
    const demand = await raw.hgetall(`{${key}}:d`);
    const [bId, entry] = Object.entries(demand).find(([, v]) => v.split(" ").length > 2)!;
    const [served, back, , mark] = entry.split(" ");
    expect(Number(mark)).toBe(later.marks[0]![0]);
    const [seconds, micros] = await raw.time();
    const now = Number(seconds) * 1_000 + Number(micros) / 1_000;
    await raw.hset(`{${key}}:d`, bId, `${served} ${back} ${now - 300} ${mark}`);
    expect((await a.book(tight, requests(1), true)).admitted).toBe(1);
  });

  it("a booking for later counts as due once the levels cover it, not before", async () => {
    const { a, b } = await pair();
    const tight = layout([dim("rpm", 8)]);
    expect((await a.book(tight, requests(8), true)).admitted).toBe(8);
    expect((await b.book(tight, requests(1), true)).booked).toBe(true);
    // A books two after B, a batch past it: B, uncovered, is not due and holds A back in nothing.
    expect(await a.book(tight, requests(1), true)).toMatchObject({ booked: true, dimension: "rpm" });
    expect(await a.book(tight, requests(1), true)).toMatchObject({ booked: true, dimension: "rpm" });
    // A refund of 1 covers B's booking (not A's after it): now A, past B by two, waits for B.
    await a.adjust(tight, [1]);
    expect(await a.book(tight, requests(1), true)).toMatchObject({ admitted: 0, booked: false, dimension: "fairness" });
  });

  it("lists no process whose last request was booked for later: it will not book again", async () => {
    const { key, a, b } = await pair();
    const tight = layout([dim("rpm", 8)]);
    expect((await a.book(tight, requests(8), false)).admitted).toBe(8);
    expect(await b.book(tight, requests(1), false)).toMatchObject({ booked: true, dimension: "rpm" });
    expect(await raw.exists(`{${key}}:d`)).toBe(0);
  });

  it("forgets a process gone for longer than the grace after it said it would book", async () => {
    const { key, a, b } = await pair();
    expect((await b.book(rpm, requests(1), true)).admitted).toBe(1);
    for (let round = 0; round < 2; round++) expect((await a.book(rpm, requests(15), true)).admitted).toBe(15);
    expect((await a.book(rpm, requests(15), true)).dimension).toBe("fairness");
    // B's entry (the lower count) as it would read had B not come back for 3 s (the grace is 1 s).
    const entries = Object.entries(await raw.hgetall(`{${key}}:d`)).map(([id, v]) => [id, Number(v.split(" ")[0])]);
    const [bId, served] = entries.sort((x, y) => Number(x[1]) - Number(y[1]))[0]!;
    const [seconds] = await raw.time();
    await raw.hset(`{${key}}:d`, bId!, `${served} ${Number(seconds) * 1_000 - 3_000}`);
    expect((await a.book(rpm, requests(15), true)).admitted).toBe(15);
    expect(await raw.hexists(`{${key}}:d`, String(bId))).toBe(0);
  });

  it("keeps the demand hash no longer than its latest entry needs", async () => {
    const { key, a } = await pair();
    await a.book(rpm, requests(15), true);
    const ttl = await raw.pttl(`{${key}}:d`);
    expect(ttl).toBeGreaterThan(500);
    expect(ttl).toBeLessThanOrEqual(1_000);
    await a.book(rpm, requests(1), false);
    expect(await raw.exists(`{${key}}:d`)).toBe(0);
  });
});
