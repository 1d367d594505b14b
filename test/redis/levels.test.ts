import { expect, it } from "vitest";
import { ADAPTER_NAMES, describeRedis, levels, sleep, storeFactory, timed } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { bookOne } from "./book-one.js";

const DAY = 86_400_000;

describeRedis.each(ADAPTER_NAMES)("adjust, lower, pause (%s)", (adapter) => {
  const store = storeFactory(adapter);
  // 1 unit per 10 ms: refill between calls shows, and is bounded by the time they took.
  const fast = layout([dim("rps", 100, 1_000)]);
  // Per day: the refill during a test stays far below the tolerances.
  const slow = layout([dim("rpd", 100, DAY), dim("tpd", 1_000, DAY)]);

  it("refunds up to capacity, never above", async () => {
    const s = await store();
    await bookOne(s, slow, [10, 100]);
    await s.adjust(slow, [50, 60]);
    const [rpd, tpd] = await levels(s, slow);
    expect(rpd).toBe(100);
    expect(tpd).toBeCloseTo(960, 1);
  });

  it("refills to now before a refund, so the refund is counted once and the refill once", async () => {
    const s = await store();
    const { ms } = await timed(async () => {
      await bookOne(s, fast, [100]);
      await sleep(200);
      await s.adjust(fast, [30]);
    });
    const level = (await levels(s, fast))[0]!;
    // 200+ ms of refill (>= 20) plus 30, never the refill counted twice.
    expect(level).toBeGreaterThanOrEqual(50);
    expect(level).toBeLessThanOrEqual(30 + ms / 10 + 1);
  });

  it("charges extra with a negative delta, into debt", async () => {
    const s = await store();
    await s.adjust(slow, [-150, 0]);
    const [rpd, tpd] = await levels(s, slow);
    expect(rpd).toBeCloseTo(-50, 1);
    expect(tpd).toBe(1_000);
  });

  it("starts a missing state at initialFraction before a delta", async () => {
    const s = await store();
    const half = layout([dim("rpd", 100, DAY)], { initialFraction: 0.5 });
    await s.adjust(half, [10]);
    expect((await levels(s, half))[0]).toBeCloseTo(60, 2);
  });

  it("lowers to the remaining without a mark, and never raises", async () => {
    const s = await store();
    await s.lower(slow, 1, 300, undefined);
    expect((await levels(s, slow))[1]).toBeCloseTo(300, 1);
    await s.lower(slow, 1, 800, undefined);
    const [rpd, tpd] = await levels(s, slow);
    expect(tpd).toBeCloseTo(300, 1);
    expect(rpd).toBe(100);
  });

  it("lowers to the remaining less what was booked after the mark", async () => {
    const s = await store();
    const a = await bookOne(s, slow, [1, 100]);
    await bookOne(s, slow, [1, 200]);
    // The provider saw a (remaining 600) but not the 200 booked after it.
    await s.lower(slow, 1, 600, a.marks![1]);
    expect((await levels(s, slow))[1]).toBeCloseTo(400, 1);
    // More booked after the mark than remains: floored at zero.
    await s.lower(slow, 1, 150, a.marks![1]);
    expect((await levels(s, slow))[1]).toBeCloseTo(0, 1);
  });

  it("resyncs to the lower of the two readings, and raises a level a reading set too low, up to the own count", async () => {
    const s = await store();
    const a = await bookOne(s, slow, [1, 100]);
    await bookOne(s, slow, [1, 200]);
    // Own count: 700. A reading that counted the 200 twice (stamped at completion): 400 - 200.
    await s.resync(slow, 1, { remaining: 400, brought: 400, mark: a.marks![1] });
    expect((await levels(s, slow))[1]).toBeCloseTo(200, 1);
    // A later reading: up again, not above the plain remaining.
    await s.resync(slow, 1, { remaining: 650, brought: 900, mark: a.marks![1] });
    expect((await levels(s, slow))[1]).toBeCloseTo(650, 1);
    // Never above the own count, whatever the reading says.
    await s.resync(slow, 1, { remaining: 1_000, brought: 1_000, mark: undefined });
    expect((await levels(s, slow))[1]).toBeCloseTo(700, 1);
    // Bookings and refunds move the own count with the level.
    await s.lower(slow, 1, 100, undefined);
    await bookOne(s, slow, [1, 50]);
    await s.adjust(slow, [0, 20]);
    await s.resync(slow, 1, { remaining: 1_000, brought: 1_000, mark: undefined });
    expect((await levels(s, slow))[1]).toBeCloseTo(670, 1);
  });

  it("resyncs a level in debt only downwards: bookings hold it", async () => {
    const s = await store();
    await bookOne(s, slow, [1, 1_000]);
    await bookOne(s, slow, [1, 500]);
    await s.resync(slow, 1, { remaining: 900, brought: 900, mark: undefined });
    expect((await levels(s, slow))[1]).toBeCloseTo(-500, 1);
  });

  it("never raises a level that is in debt", async () => {
    const s = await store();
    await bookOne(s, slow, [1, 1_000]);
    await bookOne(s, slow, [1, 500]);
    await s.lower(slow, 1, 900, undefined);
    expect((await levels(s, slow))[1]).toBeCloseTo(-500, 1);
  });

  it("pauses the chosen dimensions, or all, for positive costs; a shorter pause never shortens one", async () => {
    const s = await store();
    const { value: both, ms } = await timed(async () => {
      await s.pause(slow, undefined, 1_000);
      await s.pause(slow, [0], 100);
      return bookOne(s, slow, [1, 1]);
    });
    expect(both.booked).toBe(true);
    expect(both.waitMs).toBeGreaterThanOrEqual(1_000 - ms);
    expect(both.waitMs).toBeLessThanOrEqual(1_000);
    expect((await bookOne(s, slow, [0, 0])).waitMs).toBe(0);
  });

  it("ends a pause on time", async () => {
    const s = await store();
    const { value: paused, ms } = await timed(async () => {
      await s.pause(fast, [0], 500);
      return bookOne(s, fast, [1]);
    });
    expect(paused.waitMs).toBeGreaterThanOrEqual(500 - ms);
    await sleep(600);
    expect((await bookOne(s, fast, [1])).waitMs).toBe(0);
  });
});
