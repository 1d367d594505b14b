import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

useFakeTime();

/** A limiter with the buckets full and no arrival delay, its warnings collected. */
function limiter(options: ConstructorParameters<typeof Limiter>[0] = {}): { limiter: Limiter; warnings: Error[] } {
  const warnings: Error[] = [];
  const made = new Limiter({ initial: "full", arrivalDelayMs: 0, onWarning: (w) => warnings.push(w), ...options });
  return { limiter: made, warnings };
}

function available(l: Limiter, name: string): number {
  return l.snapshot().dimensions[name]!.available;
}

describe("a settle believes a usage only as far as the call can have used", () => {
  it("1e300 tokens on an estimate of 100 charge 16 times the estimate, with a warning; the budget recovers", async () => {
    const { limiter: l, warnings } = limiter({ tpm: 1_000, capacity: { tpm: 1_000 } });
    const r = await l.acquire(100);
    r.settle(1e300);
    r.release();
    // 16 * 100 = 1,600 beyond a capacity of 1,000: a debt of 600, repaid in 36 s, not never.
    expect(available(l, "tpm")).toBe(-600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBeInstanceOf(RangeError);
    expect(warnings[0]!.message).toBe(
      'settle(): a usage of 1e+300 on "tpm" is beyond what the call can have used (estimate 100, capacity 1000, ' +
        "maxUsage 10000000); charging 1600",
    );
  });

  it("an estimate of 0 still charges up to a whole bucket", async () => {
    const { limiter: l, warnings } = limiter({ tpm: 1_000 });
    const r = await l.acquire(0);
    r.settle(900);
    expect(available(l, "tpm")).toBe(100);
    expect(warnings).toEqual([]);
    r.settle(Number.MAX_VALUE);
    expect(available(l, "tpm")).toBe(0);
    expect(warnings).toHaveLength(1);
    r.release();
  });

  it("maxUsage is an absolute ceiling per dimension, below the estimate's bound", async () => {
    const { limiter: l, warnings } = limiter({ tpd: 1_000_000, maxUsage: 5_000 });
    const r = await l.acquire(10_000);
    r.settle(20_000);
    r.release();
    expect(available(l, "tpd")).toBe(995_000);
    expect(warnings[0]!.message).toMatch(/charging 5000$/);
  });

  it("maxUsage: Infinity leaves only the estimate's bound", async () => {
    const { limiter: l } = limiter({ tpd: 1_000_000, maxUsage: Infinity });
    const r = await l.acquire(100_000);
    r.settle(1e20);
    r.release();
    expect(available(l, "tpd")).toBe(1_000_000 - 1_600_000);
  });

  it("fractional usages are charged in whole tokens, rounded up", async () => {
    const { limiter: l, warnings } = limiter({ tpm: 1_000 });
    const r = await l.acquire(10);
    r.settle(10.2);
    r.release();
    expect(available(l, "tpm")).toBe(989);
    expect(warnings).toEqual([]);
  });

  it("input and output are capped apart, each against its own dimension", async () => {
    const { limiter: l, warnings } = limiter({ itpm: 10_000, otpm: 2_000, tpm: 100_000 });
    const r = await l.acquire({ input: 100, output: 200 });
    r.settle({ input: 1e12, output: 150 });
    r.release();
    // input: max(1,600, 10,000) = 10,000; output as reported; tokens: 16 * 300 = 4,800 < the 100,000 capacity.
    expect(available(l, "itpm")).toBe(0);
    expect(available(l, "otpm")).toBe(1_850);
    expect(available(l, "tpm")).toBe(0);
    expect(warnings.map((w) => w.message.match(/on "(\w+)"/)![1])).toEqual(["tpm", "itpm"]);
  });

  it("the settled event reports the capped charge", async () => {
    const { limiter: l } = limiter({ tpm: 1_000 });
    const used: number[] = [];
    l.on("settled", ({ dimensions }) => used.push(dimensions.tpm!.used));
    const r = await l.acquire(10);
    r.settle(1e20);
    r.release();
    expect(used).toEqual([1_000]);
  });
});

describe("maxUsage is validated at construction", () => {
  it.each([
    ["1e6" as never, TypeError, 'maxUsage must be a number, got string "1e6"'],
    [0, RangeError, "maxUsage must be a number >= 1 (Infinity for no ceiling), got 0"],
    [NaN, RangeError, "maxUsage must be a number >= 1 (Infinity for no ceiling), got NaN"],
  ])("%s: %s", (maxUsage, type, message) => {
    expect(() => new Limiter({ tpm: 1_000, maxUsage })).toThrow(new type(message));
  });
});
