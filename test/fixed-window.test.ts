import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import type { ProviderName } from "../src/headers/index.js";
import { createProvider, type Dialect } from "../src/testing/index.js";
import type { WindowMode } from "../src/testing/dimensions.js";
import { useFakeTime } from "./fake-time.js";
import { ARRIVAL_ALLOWANCE_MS } from "./defaults.js";

const time = useFakeTime();

const rpm = (remaining: number, reset?: string): Record<string, string> => ({
  "x-ratelimit-limit-requests": "600",
  "x-ratelimit-remaining-requests": String(remaining),
  ...(reset === undefined ? {} : { "x-ratelimit-reset-requests": reset }),
});

describe("fixed windows learned from headers", () => {
  it("two resets pointing at one boundary while a bucket's would have moved: the remaining holds until the reset, then the whole limit", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "openai" });
    // A bucket missing 500 of 600 would be full in 50 s; this one resets in 30 s. One reading cannot tell a skewed or
    // rounded bucket.
    limiter.sync(rpm(100, "30s"));
    expect(limiter.snapshot().dimensions.rpm!.resetInMs).toBeUndefined();
    await time.timers.tickAsync(10_000);
    // Ten seconds on, the same boundary and nothing refilled: a bucket's would be 10 s later.
    limiter.sync(rpm(100, "20s"));
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ available: 100 });
    expect(limiter.snapshot().dimensions.rpm!.resetInMs).toBeGreaterThan(19_000);
    await time.timers.tickAsync(19_000);
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(100);
    await time.timers.tickAsync(1_001);
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(600);
  });

  it("a later pair of resets that moves as a bucket's does revokes window mode", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "openai" });
    limiter.sync(rpm(100, "30s"));
    await time.timers.tickAsync(10_000);
    limiter.sync(rpm(100, "20s"));
    expect(limiter.snapshot().dimensions.rpm!.resetInMs).toBeDefined();
    // 100 more drawn: a bucket's boundary moves 10 s later, and it did; a window's would have held.
    limiter.sync(rpm(0, "30s"));
    expect(limiter.snapshot().dimensions.rpm!.resetInMs).toBeUndefined();
    await time.timers.tickAsync(1_000);
    expect(limiter.snapshot().dimensions.rpm!.available).toBeCloseTo(10, 6);
  });

  it("a reset that fits a continuous bucket leaves it a bucket", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "openai" });
    limiter.sync(rpm(100, "50s"));
    expect(limiter.snapshot().dimensions.rpm!.resetInMs).toBeUndefined();
    await time.timers.tickAsync(1_000);
    expect(limiter.snapshot().dimensions.rpm!.available).toBeCloseTo(110, 6);
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
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(0); // no refill inside the window
    await time.timers.tickAsync(1_000);
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(600);
  });

  it("a 429 on a windowed dimension: the window is spent, and its retry hint says when it ends", async () => {
    const limiter = new Limiter({ rpm: 600, provider: "azure" });
    const azure = (remaining: number) => ({
      "x-ratelimit-limit-requests": "100",
      "x-ratelimit-remaining-requests": String(remaining),
    });
    limiter.sync(azure(60)); // Azure's allowance is a 10 s sub-window by documentation
    const body = { error: { type: "requests", code: "429" } };
    limiter.sync({ ...azure(0), "retry-after-ms": "4000" }, { status: 429, body });
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ available: 0, resetInMs: 4_000 });
    await time.timers.tickAsync(3_999);
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(0);
    await time.timers.tickAsync(1);
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(100);
  });

  it("a 429 naming a unit that two dimensions meter moves no window: the hint may be the other's", () => {
    const limiter = new Limiter({ rpm: 600, rpd: 100_000, provider: "azure" });
    limiter.sync({ "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "60" });
    limiter.sync(
      { "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "0", "retry-after-ms": "4000" },
      { status: 429, body: { error: { type: "requests" } } },
    );
    expect(limiter.snapshot().dimensions.rpm!.resetInMs).toBeUndefined();
  });

  it("a refund of a charge made before the window ended is not given back", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai" });
    const early = await limiter.acquire(1_000);
    const tokens = (reset: string) => ({
      "x-ratelimit-limit-tokens": "10000",
      "x-ratelimit-remaining-tokens": "9000",
      "x-ratelimit-reset-tokens": reset,
    });
    early.sync(tokens("20s"));
    await time.timers.tickAsync(10_000);
    limiter.sync(tokens("10s")); // the same boundary, nothing refilled: a window
    await time.timers.tickAsync(10_001);
    const late = await limiter.acquire(10_000);
    early.settle(0); // the provider dropped the old window's count: nothing comes back
    expect(limiter.snapshot().dimensions.tpm!.available).toBe(0);
    late.release();
    early.release();
  });
});

/** How a client sees the simulator: its dialect, how its headers reach it, and its wall clock. */
interface ClientView {
  /** The dialect the limiter reads. Default: the simulator's. */
  provider?: ProviderName;
  /** Rewrites the response headers before the limiter reads them. */
  headers?: (headers: Record<string, string>) => Record<string, string>;
  /** How far the client's wall clock is ahead of the provider's. */
  clockSkewMs?: number;
}

/**
 * `calls` short calls, one every 10 ms, through one limiter against the
 * simulator; 429s retried at the head. (Before its first response a limiter
 * cannot tell a window from a bucket: the burst outlasts the first answer.)
 * `windowed`: whether the limiter ever showed a window reset in its snapshot.
 */
async function burst(
  window: WindowMode,
  dialect: Dialect,
  calls: number,
  view: ClientView = {},
): Promise<{ rejected: number; lastAdmittedMs: number; windowed: boolean }> {
  const provider = createProvider({ rpm: 120, tpm: 1_000_000, window, dialect, latencyMs: 500 });
  const skew = view.clockSkewMs ?? 0;
  const clock = { now: () => performance.now(), wallNow: () => Date.now() + skew };
  const limiter = new Limiter({
    rpm: 120,
    tpm: 1_000_000,
    provider: view.provider ?? (dialect as ProviderName),
    clock,
  });
  const rewrite = view.headers ?? ((headers) => headers);
  let lastAdmittedMs = 0;
  let windowed = false;
  const start = performance.now();
  const done = Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, 10 * i));
      return limiter.run(
        100,
        async (reservation) => {
          lastAdmittedMs = performance.now() - start;
          const res = await provider.call({ prompt: 50, maxTokens: 50, actual: 20 });
          const headers = rewrite(res.headers);
          if (res.status === 429)
            throw Object.assign(new Error("429"), { status: 429, headers, error: res.body.error });
          reservation.sync(headers);
          windowed ||= Object.values(limiter.snapshot().dimensions).some(
            (d) => typeof d === "object" && d !== null && "resetInMs" in d,
          );
          return { value: res, used: 70 };
        },
        { retry: { attempts: 20 } },
      );
    }),
  );
  await time.timers.tickAsync(600_000);
  await done;
  return { rejected: provider.stats().rejected, lastAdmittedMs, windowed };
}

/** Without the `date` header that would correct a skewed client clock. */
function withoutDate({ date: _, ...headers }: Record<string, string>): Record<string, string> {
  return headers;
}

/** Anthropic's requests triple as OpenRouter sends its own: the reset as epoch milliseconds. */
function asOpenRouter(headers: Record<string, string>): Record<string, string> {
  return {
    "x-ratelimit-limit": headers["anthropic-ratelimit-requests-limit"]!,
    "x-ratelimit-remaining": headers["anthropic-ratelimit-requests-remaining"]!,
    "x-ratelimit-reset": String(Date.parse(headers["anthropic-ratelimit-requests-reset"]!)),
  };
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

  it("Azure's sub-windows: one 429 teaches the allowance and when windows end; then each window is used as it opens", async () => {
    // 20 calls per 10 s sub-window (windows from 0 s): 200 calls fill ten of them, the last opening at 90 s.
    const { rejected, lastAdmittedMs } = await burst("azure", "azure", 200);
    // The 21st call's 429 teaches the allowance, and its retry hint where the windows end.
    expect(rejected).toBe(1);
    expect(lastAdmittedMs).toBeGreaterThanOrEqual(90_000);
    expect(lastAdmittedMs).toBeLessThanOrEqual(90_000 + 1);
  });

  it("a lone client on a continuous bucket keeps its full rate through the burst's noisy readings", async () => {
    // 120 at once, then one every 500 ms: the 360th call at (360 − 120) × 0.5 s = 120 s, and
    // the refill after the full bucket starts up to the arrival allowance late.
    const { rejected, lastAdmittedMs } = await burst("bucket", "openai", 360);
    expect(rejected).toBe(0);
    expect(lastAdmittedMs).toBeLessThanOrEqual(120_000 + ARRIVAL_ALLOWANCE_MS + 1);
  });

  // A reset stamped as an absolute time reads 5 s off on a client clock 5 s off: one reading looks like a window.
  // (OpenRouter's minute boundaries read 5 s later than a minute look like a day's: its dialect's concern, not tested
  // here.)
  it.each([
    ["Anthropic RFC 3339", 5_000, "anthropic", withoutDate],
    ["Anthropic RFC 3339", -5_000, "anthropic", withoutDate],
    ["OpenRouter epoch ms", 5_000, "openrouter", asOpenRouter],
  ] as const)(
    "a continuous provider with %s resets, client clock %i ms ahead, no date header: never windowed, no 429",
    async (_, clockSkewMs, provider, headers) => {
      const { rejected, windowed, lastAdmittedMs } = await burst("bucket", "anthropic", 360, {
        provider,
        headers,
        clockSkewMs,
      });
      expect(windowed).toBe(false);
      expect(rejected).toBe(0);
      expect(lastAdmittedMs).toBeLessThanOrEqual(120_000 + ARRIVAL_ALLOWANCE_MS + 1);
    },
  );
});
