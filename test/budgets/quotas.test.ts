import { describe, expect, it } from "vitest";
import {
  Limiter,
  QuotaExceededError,
  WaitTimeoutError,
  type LimiterOptions,
  type QuotaEvent,
  type RejectedEvent,
} from "../../src/index.js";
import { flush, useFakeTime, WALL_START_MS } from "../fake-time.js";

const time = useFakeTime();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** $1 and $2 per million tokens: 1,000 and 2,000 nano-dollars a token. */
const PRICES = { input: 1, output: 2 };
/** 1,000 in and 1,000 out at PRICES: $0.003. */
const CALL = { input: 1_000, output: 1_000 };

function limiter(options: LimiterOptions): Limiter {
  return new Limiter({ rpm: 1_000_000, initial: "full", arrivalDelayMs: 0, ...options });
}

describe("a money quota", () => {
  it("reserves the estimate's price at admission and settles to the usage's", async () => {
    const l = limiter({ prices: PRICES, quotas: { usd: { day: 0.01 } } });
    const r = await l.acquire(CALL);
    expect((await l.quota()).usd?.day).toEqual({
      limit: 0.01,
      used: 0,
      reserved: 0.003,
      remaining: 0.007,
      resetsAt: WALL_START_MS + DAY,
    });
    r.settle({ input: 100, output: 50 }); // 100 000 + 100 000 nano-dollars
    r.release();
    expect((await l.quota()).usd?.day).toMatchObject({ used: 0.0002, reserved: 0, remaining: 0.0098 });
  });

  it("refuses at once a call that what was used leaves no room for, with what binds", async () => {
    const l = limiter({ prices: PRICES, quotas: { usd: { day: 0.01 } } });
    for (let i = 0; i < 3; i++) (await l.acquire(CALL)).release();
    const refused = l.acquire(CALL);
    await expect(refused).rejects.toThrow(QuotaExceededError);
    const error = (await refused.catch((e: unknown) => e)) as QuotaExceededError;
    expect(error).toMatchObject({
      code: "QUOTA_EXCEEDED",
      unit: "usd",
      period: "day",
      tenant: undefined,
      limit: 0.01,
      remaining: 0.001,
      resetsAt: WALL_START_MS + DAY,
    });
  });

  it("waits FIFO while holds are out, and is admitted when a settle frees room", async () => {
    const l = limiter({ prices: PRICES, quotas: { usd: { day: 0.01 } } });
    const held = [await l.acquire(CALL), await l.acquire(CALL), await l.acquire(CALL)];
    let admitted = false;
    const waiting = l.acquire(CALL).then((r) => {
      admitted = true;
      return r;
    });
    await flush(time.timers);
    expect(admitted).toBe(false);
    held[0]!.settle({ input: 100, output: 100 });
    await flush(time.timers);
    expect(admitted).toBe(true);
    (await waiting).release();
  });

  it("a refund gives the hold back; an error response without usage gives the money back", async () => {
    const l = limiter({ prices: PRICES, quotas: { usd: { day: 0.01 }, requests: { day: 10 } } });
    const r = await l.acquire(CALL);
    r.refund();
    r.release();
    expect((await l.quota()).usd?.day?.used).toBe(0);
    const rateLimited = Object.assign(new Error("429"), { status: 429, headers: {} });
    await expect(l.run(CALL, () => Promise.reject(rateLimited))).rejects.toBe(rateLimited);
    const report = await l.quota();
    expect(report.usd?.day?.used).toBe(0);
    expect(report.requests?.day?.used).toBe(1); // the request was made
  });

  it("an unknown outcome (a network error) keeps the hold", async () => {
    const l = limiter({ prices: PRICES, quotas: { usd: { day: 0.01 } } });
    const cut = new TypeError("fetch failed");
    await expect(l.run(CALL, () => Promise.reject(cut))).rejects.toBe(cut);
    expect((await l.quota()).usd?.day?.used).toBe(0.003);
  });

  it("prices cache reads and writes apart, as parts of input", async () => {
    const l = limiter({
      prices: { input: 2.5, output: 10, cachedInput: 1.25, cacheWrite: 3.125 },
      quotas: { usd: { day: 1 } },
    });
    const r = await l.acquire({ input: 1_000, output: 0 });
    r.settle({ input: 1_000, output: 100, cachedInput: 400, cacheWrite: 200 });
    r.release();
    // 400 fresh × 2500 + 400 × 1250 + 200 × 3125 + 100 × 10000 nano-dollars
    expect((await l.quota()).usd?.day?.used).toBe((1_000_000 + 500_000 + 625_000 + 1_000_000) / 1e9);
  });

  it("a settle above the estimate may overrun, and then nothing more is admitted in the period", async () => {
    const l = limiter({ prices: PRICES, quotas: { usd: { day: 0.01 } } });
    const r = await l.acquire(CALL);
    r.settle({ input: 10_000, output: 0 }); // $0.01 exactly... and more:
    r.settle({ input: 20_000, output: 0 });
    r.release();
    expect((await l.quota()).usd?.day).toMatchObject({ used: 0.02, remaining: 0 });
    await expect(l.acquire({ input: 1, output: 0 })).rejects.toThrow(QuotaExceededError);
  });
});

describe("periods", () => {
  it('with onQuota: "wait" a call waits for the period to turn, and is admitted at its first instant', async () => {
    const l = limiter({ quotas: { requests: { hour: 1 } }, onQuota: "wait" });
    (await l.acquire(0)).release();
    let admittedAt = -1;
    const waiting = l.acquire(0).then((r) => {
      admittedAt = Date.now();
      return r;
    });
    await time.at(HOUR - 1);
    expect(admittedAt).toBe(-1);
    await time.at(HOUR);
    expect(admittedAt).toBe(WALL_START_MS + HOUR);
    (await waiting).release();
  });

  it("a call's own onQuota overrides the limiter's", async () => {
    const l = limiter({ quotas: { requests: { day: 1 } } });
    (await l.acquire(0)).release();
    await expect(l.acquire(0)).rejects.toThrow(QuotaExceededError);
    const waiting = l.acquire(0, { onQuota: "wait" });
    await time.at(DAY);
    (await waiting).release();
  });

  it("a turn further away than maxWaitMs is a WaitTimeoutError at once", async () => {
    const l = limiter({ quotas: { requests: { day: 1 } }, onQuota: "wait", maxWaitMs: 60_000 });
    (await l.acquire(0)).release();
    const error = await l.acquire(0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).availableAt).toBe(WALL_START_MS + DAY);
  });

  it("a week begins on Monday and a month on the 1st, in the limiter's time zone", async () => {
    // 2026-01-01 is a Thursday; Monday is 2026-01-05. Berlin is UTC+1 in January.
    const l = limiter({ quotas: { requests: { week: 5, month: 9 } }, timeZone: "Europe/Berlin" });
    const report = await l.quota();
    expect(report.requests?.week?.resetsAt).toBe(Date.UTC(2026, 0, 4, 23));
    expect(report.requests?.month?.resetsAt).toBe(Date.UTC(2026, 0, 31, 23));
  });
});

describe("daylight-saving days", () => {
  it.each([
    ["America/New_York", Date.UTC(2026, 10, 1, 4), 25], // clocks go back: 1 Nov lasts 25 hours
    ["America/New_York", Date.UTC(2026, 2, 8, 5), 23], // clocks go forward: 8 Mar lasts 23 hours
    ["Europe/Berlin", Date.UTC(2026, 9, 24, 22), 25],
    ["Europe/Berlin", Date.UTC(2026, 2, 28, 23), 23],
  ])("in %s the day from %d lasts %d hours, and the quota turns at its end", async (timeZone, midnight, hours) => {
    const clock = { now: () => time.clock.now(), wallNow: () => midnight + time.clock.now() };
    const l = limiter({ clock, timeZone, quotas: { requests: { day: 1 } } });
    (await l.acquire(0)).release();
    expect((await l.quota()).requests?.day?.resetsAt).toBe(midnight + hours * HOUR);
    await time.at(hours * HOUR - 1);
    await expect(l.acquire(0)).rejects.toThrow(QuotaExceededError);
    await time.at(hours * HOUR);
    (await l.acquire(0)).release();
  });
});

describe("tenants", () => {
  it("are charged on their own quota and the limiter's, each apart", async () => {
    const l = limiter({ quotas: { requests: { day: 3 } }, tenantQuotas: { requests: { day: 2 } } });
    for (let i = 0; i < 2; i++) (await l.acquire(0, { tenant: "acme" })).release();
    const error = await l.acquire(0, { tenant: "acme" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "QUOTA_EXCEEDED", tenant: "acme", unit: "requests", limit: 2 });
    (await l.acquire(0, { tenant: "globex" })).release();
    expect((await l.quota("globex")).requests?.day?.used).toBe(1);
    expect((await l.quota()).requests?.day?.used).toBe(3);
    // The limiter's own quota is spent now: globex is refused on it.
    expect(await l.acquire(0, { tenant: "globex" }).catch((e: unknown) => e)).toMatchObject({ tenant: undefined });
  });

  it("a function gives each tenant its quotas", async () => {
    const l = limiter({ tenantQuotas: (tenant) => ({ requests: { day: tenant === "big" ? 2 : 1 } }) });
    (await l.acquire(0, { tenant: "small" })).release();
    await expect(l.acquire(0, { tenant: "small" })).rejects.toThrow(QuotaExceededError);
    (await l.acquire(0, { tenant: "big" })).release();
    (await l.acquire(0, { tenant: "big" })).release();
  });

  it("200k tenants leave nothing behind once their periods end", { timeout: 120_000 }, async () => {
    const l = limiter({ tenantQuotas: { requests: { hour: 5 } } });
    for (let i = 0; i < 200_000; i++) (await l.acquire(0, { tenant: `t${i}` })).release();
    const kept = (): number => (l as unknown as { quotas: { tenantCount: number } }).quotas.tenantCount;
    expect(kept()).toBe(200_000);
    await time.at(HOUR);
    expect(kept()).toBe(0);
    expect((await l.quota("t1")).requests?.hour?.used).toBe(0);
    expect(kept()).toBe(0); // asking leaves nothing either
  });
});

describe("held budgets", () => {
  it("take at admission and give back at release, FIFO", async () => {
    const l = limiter({ held: { tokens: 1_000 } });
    const first = await l.acquire(600);
    let second = false;
    const waiting = l.acquire(600).then((r) => ((second = true), r));
    await flush(time.timers);
    expect(second).toBe(false);
    first.settle(10); // a settle does not give held tokens back: the batch is still enqueued
    await flush(time.timers);
    expect(second).toBe(false);
    expect(l.snapshot().held).toEqual({ tokens: { limit: 1_000, available: 400 } });
    first.release();
    await flush(time.timers);
    expect(second).toBe(true);
    (await waiting).release();
  });

  it("held.requests is concurrency", () => {
    expect(limiter({ held: { requests: 2 } }).snapshot().concurrency).toEqual({ limit: 2, available: 2 });
    expect(() => limiter({ held: { requests: 2 }, concurrency: 3 })).toThrow(TypeError);
  });
});

describe("admission stays atomic with the rate buckets", () => {
  it("a call the rate buckets hold back charges no quota", async () => {
    const l = new Limiter({ rpm: 1, initial: "full", arrivalDelayMs: 0, quotas: { requests: { day: 5 } } });
    (await l.acquire(0)).release();
    const waiting = l.acquire(0);
    await flush(time.timers);
    expect((await l.quota()).requests?.day).toMatchObject({ used: 1, reserved: 0 });
    await time.at(60_000);
    (await waiting).release();
    expect((await l.quota()).requests?.day?.used).toBe(2);
  });
});

describe("seen and told", () => {
  it("events at 80%, 100% and at the turn; quota as a rejection reason", async () => {
    const l = limiter({ quotas: { requests: { hour: 5 } } });
    const events: QuotaEvent[] = [];
    const rejected: RejectedEvent[] = [];
    l.on("quota", (e) => events.push(e));
    l.on("rejected", (e) => rejected.push(e));
    for (let i = 0; i < 5; i++) (await l.acquire(0)).release();
    await l.acquire(0).catch(() => undefined);
    expect(events.map((e) => e.change)).toEqual(["80%", "100%"]);
    expect(rejected.map((e) => e.reason)).toEqual(["quota"]);
    await time.at(HOUR);
    expect(events.map((e) => e.change)).toEqual(["80%", "100%", "turned"]);
    expect(events[2]).toMatchObject({ used: 5, limit: 5, unit: "requests", period: "hour", tenant: undefined });
  });

  it("a limiter without quotas reports none", async () => {
    const l = limiter({});
    expect(await l.quota()).toEqual({});
    expect(l.snapshot().quotas).toBeUndefined();
  });
});

describe("bad configuration throws at once", () => {
  it.each([
    [{ quotas: { usd: { day: 5 } } }, TypeError], // no prices
    [{ quotas: { bytes: { day: 5 } } }, TypeError],
    [{ quotas: { tokens: { year: 5 } } }, TypeError],
    [{ quotas: { tokens: { day: -1 } } }, RangeError],
    [{ prices: { input: 1 } }, TypeError],
    [{ prices: { input: 1, output: Number.NaN } }, RangeError],
    [{ timeZone: "Mars/Olympus" }, TypeError],
    [{ held: { bytes: 5 } }, TypeError],
    [{ onQuota: "later" }, TypeError],
  ])("%j", (options, type) => {
    expect(() => limiter(options as never)).toThrow(type);
  });

  it("quotas with a shared store are refused: they are in-memory only in this version", () => {
    const store = { book: () => undefined } as never;
    expect(() => new Limiter({ store, quotas: { requests: { day: 5 } } })).toThrow(
      /quotas are in-memory only in this version/,
    );
  });
});
