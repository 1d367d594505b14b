import { describe, expect, it } from "vitest";
import { Limiter, QuotaExceededError, type Clock } from "../../src/index.js";
import { flush, useFakeTime, WALL_START_MS } from "../fake-time.js";

const time = useFakeTime();
const DAY = 86_400_000;

function limiter(options: ConstructorParameters<typeof Limiter>[0]): Limiter {
  return new Limiter({ rpm: 1e6, initial: "full", arrivalDelayMs: 0, onWarning: () => undefined, ...options });
}

describe("hostile inputs to the quotas", () => {
  it("an absurd usage is priced at maxUsage tokens at most", async () => {
    const l = limiter({ prices: { input: 1, output: 1 }, quotas: { usd: { month: 1_000 } }, maxUsage: 1_000_000 });
    const r = await l.acquire({ input: 10, output: 10 });
    r.settle({ input: 1e300, output: Number.MAX_VALUE, cachedInput: 1e300 });
    r.release();
    // Input, its cache reads and output each taken at 1e6 tokens at most: 1e6 cached + 1e6 output at $1 a million.
    expect((await l.quota()).usd?.month?.used).toBe(2);
  });

  it("cache counts beyond input, or not counts, are refused and change nothing", async () => {
    const l = limiter({ prices: { input: 1, output: 1 }, quotas: { usd: { day: 1 } } });
    await expect(l.acquire({ input: 10, output: 0, cachedInput: 11 })).rejects.toThrow(RangeError);
    const r = await l.acquire({ input: 10, output: 0 });
    expect(() => r.settle({ input: 10, output: 0, cacheWrite: Number.NaN })).toThrow(RangeError);
    expect(() => r.settle({ input: 10, output: 0, cachedInput: "5" as never })).toThrow(TypeError);
    r.release();
    expect((await l.quota()).usd?.day?.used).toBe(10 / 1e6);
  });

  it("a tenantQuotas function that throws refuses that tenant's call, and leaves nothing queued", async () => {
    const l = limiter({
      tenantQuotas: (tenant) => {
        if (tenant === "evil") throw new Error("no such tenant");
        return { requests: { day: 1 } };
      },
    });
    await expect(l.acquire(0, { tenant: "evil" })).rejects.toThrow("no such tenant");
    await expect(l.acquire(0, { tenant: "odd" as string })).resolves.toHaveProperty("release");
    expect(l.snapshot().queued).toBe(0);
  });

  it("a tenantQuotas function that gives garbage is a TypeError for that call", async () => {
    const l = limiter({ tenantQuotas: () => ({ requests: { fortnight: 3 } }) as never });
    await expect(l.acquire(0, { tenant: "t" })).rejects.toThrow(TypeError);
  });

  it("a wall clock that goes back, turns NaN or leaps past year 9999 neither throws nor turns a period back", async () => {
    let wall = WALL_START_MS;
    const clock: Clock = { now: () => time.clock.now(), wallNow: () => wall };
    const l = limiter({ clock, quotas: { requests: { day: 1 } } });
    (await l.acquire(0)).release();
    for (const reading of [WALL_START_MS - DAY, Number.NaN, 1e20, Infinity]) {
      wall = reading;
      await expect(l.acquire(0)).rejects.toThrow(QuotaExceededError);
      await flush(time.timers);
    }
    wall = WALL_START_MS + DAY;
    (await l.acquire(0)).release();
  });

  it("a wall clock unusable from the start is a TypeError at construction", () => {
    const clock: Clock = { now: () => 0, wallNow: () => Number.NaN };
    expect(() => limiter({ clock, quotas: { requests: { day: 1 } } })).toThrow(TypeError);
  });
});
