import { describe, expect, it } from "vitest";
import { Limiter, type LimiterOptions } from "../src/index.js";
import { createProvider, type ProviderOptions } from "../src/testing/index.js";
import { burst, type BurstOutcome } from "./burst.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

/** Chat-sized calls (reserving 150, using 90) at once, against a provider answering in 700 ms. */
function burstOf(quota: ProviderOptions, options: LimiterOptions, calls: number): Promise<BurstOutcome> {
  const provider = createProvider({ ...quota, latencyMs: 700 });
  return burst(time.timers, provider, new Limiter(options), calls, {
    call: { prompt: 50, maxTokens: 100, actual: 40 },
  });
}

describe("limits learned from headers", () => {
  it("nothing configured, a burst of three times a high tier's RPM: no 429 (a learned dimension admits nothing before its level is synced)", async () => {
    const { rejected, admittedAt } = await burstOf({ rpm: 2_000, tpm: 1_000_000 }, {}, 6_000);
    expect(rejected).toBe(0);
    // The oracle: 2,000 at once, then 4,000 at 2,000 a minute; the first takes one response (0.7 s) to learn from.
    expect(Math.max(...admittedAt)).toBeLessThanOrEqual(120_000 + 2_000);
  });

  it.each([
    // On default options the start-up probe sends 4; the first response tells the real limit.
    ["default options", {}, 0],
    // Told the key is fresh, the limiter trusts the configured limit at once: the 30 the provider cannot take get a 429
    // each.
    ['initial: "full"', { initial: "full" as const }, 30],
  ])(
    "told ten times the real RPM (%s): the first burst's 429s at most, then none, and the real rate within a few responses",
    async (_, options, firstBurst) => {
      const { rejected, rejectedLate, admittedAt } = await burstOf({ rpm: 10 }, { rpm: 100, ...options }, 40);
      expect(rejected).toBe(firstBurst);
      expect(rejectedLate).toBe(0);
      // The oracle: 10 at once, then one every 6 s: the 40th at 180 s. Within 5%.
      expect(Math.max(...admittedAt)).toBeLessThanOrEqual(180_000 * 1.05);
    },
  );
});

describe("draws on their way when a capacity is lowered", () => {
  it("stop refill but never turn into debt", async () => {
    const limiter = new Limiter({ tpm: 1_000 });
    const held = await limiter.acquire(800);
    limiter.setLimits({ tpm: 500 });
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(200);
    await time.timers.tickAsync(100);
    // 800 still on their way against a capacity of 500: nothing refills, nothing is taken away.
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(200);
    await time.timers.tickAsync(1_000);
    expect(limiter.snapshot().dimensions.tpm?.available).toBeGreaterThan(200);
    held.release();
  });
});
