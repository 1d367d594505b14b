import { describe, expect, it } from "vitest";
import { Limiter, type ProviderName } from "../src/index.js";
import { createProvider, type Dialect, type WindowMode } from "../src/testing/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

const rpm = (remaining: number, reset?: string): Record<string, string> => ({
  "x-ratelimit-limit-requests": "600",
  "x-ratelimit-remaining-requests": String(remaining),
  ...(reset === undefined ? {} : { "x-ratelimit-reset-requests": reset }),
});

describe("fixed windows learned from headers", () => {
  it("a reset pointing at a boundary: the remaining holds until the reset, then the whole limit", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "openai" });
    // A bucket missing 500 of 600 would be full in 50 s; this one resets in 30 s: a window.
    limiter.sync(rpm(100, "30s"));
    expect(limiter.snapshot().rpm).toMatchObject({ available: 100 });
    expect(limiter.snapshot().rpm!.resetInMs).toBeGreaterThan(29_000);
    await time.timers.tickAsync(29_000);
    expect(limiter.snapshot().rpm!.available).toBe(100);
    await time.timers.tickAsync(1_001);
    expect(limiter.snapshot().rpm!.available).toBe(600);
  });

  it("a reset that fits a continuous bucket leaves it a bucket", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "openai" });
    limiter.sync(rpm(100, "50s"));
    expect(limiter.snapshot().rpm!.resetInMs).toBeUndefined();
    await time.timers.tickAsync(1_000);
    expect(limiter.snapshot().rpm!.available).toBeCloseTo(110, 6);
  });

  it("with no reset header, a level that jumps back marks a window starting then", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "openai" });
    limiter.sync(rpm(100));
    for (let second = 1; second <= 20; second++) {
      await time.timers.tickAsync(1_000);
      limiter.sync(rpm(100));
    }
    await time.timers.tickAsync(1_000);
    limiter.sync(rpm(600)); // the window reset: far beyond what refill explains
    (await limiter.acquire(0)).release();
    limiter.sync(rpm(0));
    await time.timers.tickAsync(59_000);
    expect(limiter.snapshot().rpm!.available).toBe(0); // no refill inside the window
    await time.timers.tickAsync(1_000);
    expect(limiter.snapshot().rpm!.available).toBe(600);
  });

  it("a refund of a charge made before the window ended is not given back", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai" });
    const early = await limiter.acquire(1_000);
    early.sync({ "x-ratelimit-limit-tokens": "10000", "x-ratelimit-remaining-tokens": "9000", "x-ratelimit-reset-tokens": "20s" });
    await time.timers.tickAsync(20_001);
    const late = await limiter.acquire(10_000);
    early.settle(0); // the provider dropped the old window's count: nothing comes back
    expect(limiter.snapshot().tpm!.available).toBe(0);
    late.release();
    early.release();
  });
});

/**
 * `calls` short calls, one every 10 ms, through one limiter against the
 * simulator; 429s retried at the head. (Before its first response a limiter
 * cannot tell a window from a bucket: the burst outlasts the first answer.)
 */
async function burst(window: WindowMode, dialect: Dialect, calls: number): Promise<{ rejected: number; lastAdmittedMs: number }> {
  const provider = createProvider({ rpm: 120, tpm: 1_000_000, window, dialect, latencyMs: 500 });
  const limiter = new Limiter({ rpm: 120, tpm: 1_000_000, provider: dialect as ProviderName });
  let lastAdmittedMs = 0;
  const start = performance.now();
  const done = Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, 10 * i));
      return limiter.run(
        100,
        async (reservation) => {
          lastAdmittedMs = performance.now() - start;
          const res = await provider.call({ prompt: 50, maxTokens: 50, actual: 20 });
          if (res.status === 429) throw Object.assign(new Error("429"), { status: 429, headers: res.headers, error: res.body.error });
          reservation.sync(res.headers);
          return { value: res, used: 70 };
        },
        { retry: { attempts: 20 } },
      );
    }),
  );
  await time.timers.tickAsync(600_000);
  await done;
  return { rejected: provider.stats().rejected, lastAdmittedMs };
}

describe("against the simulator", () => {
  it("a fixed-window provider: no 429, and each window's whole limit is used as it opens", async () => {
    // The minute windows are aligned to the clock: the first ends 60 s in. Three windows hold 360 calls.
    const { rejected, lastAdmittedMs } = await burst("fixed", "openai", 360);
    expect(rejected).toBe(0);
    // A bucket would need (360 − 120) / 2 per s = 120 s; the third window opens at 120 s.
    expect(lastAdmittedMs).toBeGreaterThanOrEqual(120_000);
    expect(lastAdmittedMs).toBeLessThan(121_000);
  });

  it("Azure's sub-windows: a few 429s while it learns the allowance and where windows begin, and near their pace", async () => {
    // 20 calls per 10 s sub-window: 200 calls fill ten of them. The 21st call's 429 teaches the allowance.
    const { rejected, lastAdmittedMs } = await burst("azure", "azure", 200);
    expect(rejected).toBeLessThanOrEqual(3);
    // Ten windows from 0 s hold them; learning may cost one more.
    expect(lastAdmittedMs).toBeLessThan(110_000);
  });

  it("a lone client on a continuous bucket keeps its full rate through the burst's noisy readings", async () => {
    // 120 at once, then one every 500 ms: the 360th call at (360 − 120) × 0.5 s = 120 s.
    const { rejected, lastAdmittedMs } = await burst("bucket", "openai", 360);
    expect(rejected).toBe(0);
    expect(lastAdmittedMs).toBeLessThanOrEqual(120_000 + 1);
  });
});
