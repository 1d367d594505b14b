import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

/** OpenAI-style headers for a per-minute bucket pair. */
function openai(rpm: [number, number], tpm: [number, number]): Record<string, string> {
  return {
    "x-ratelimit-limit-requests": String(rpm[0]),
    "x-ratelimit-remaining-requests": String(rpm[1]),
    "x-ratelimit-limit-tokens": String(tpm[0]),
    "x-ratelimit-remaining-tokens": String(tpm[1]),
  };
}

describe("levels", () => {
  it("sync sets a level to the reported remaining, never above the limiter's own count", async () => {
    const limiter = new Limiter({ rpm: 100, tpm: 10_000, provider: "openai" });
    const call = await limiter.acquire(1_000);
    call.release();
    call.sync(openai([100, 40], [10_000, 2_500]));
    expect(limiter.snapshot()).toMatchObject({ dimensions: { rpm: { available: 40 }, tpm: { available: 2_500 } } });
    // A fresher response with more left undoes the earlier correction, up to the own count.
    limiter.sync(openai([100, 90], [10_000, 9_500]));
    expect(limiter.snapshot()).toMatchObject({ dimensions: { rpm: { available: 90 }, tpm: { available: 9_000 } } });
  });

  it("reservation.sync discounts what was admitted after the request that carried the headers", async () => {
    const limiter = new Limiter({ rpm: 100, tpm: 10_000, provider: "openai" });
    const first = await limiter.acquire(1_000);
    const later = [await limiter.acquire(500), await limiter.acquire(500)];
    // The provider saw only the first call: 99 requests and 9,000 tokens left.
    first.sync(openai([100, 99], [10_000, 9_000]));
    expect(limiter.snapshot()).toMatchObject({ dimensions: { rpm: { available: 97 }, tpm: { available: 8_000 } } });
    for (const r of [first, ...later]) r.release();
  });

  it("reads a response stamped at admission or at sending, whichever leaves less", async () => {
    const limiter = new Limiter({ rpm: 60, provider: "openai" });
    const first = await limiter.acquire(0);
    await time.timers.tickAsync(5_000);
    const later = [await limiter.acquire(0), await limiter.acquire(0), await limiter.acquire(0)];
    // Past the arrival delay, so the provider has seen every later call.
    await time.timers.tickAsync(1_000);
    // 20 left: stamped at admission, 6 refilled and 3 admitted since (23); stamped at sending, 20.
    first.sync({ "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "20" });
    expect(limiter.snapshot().dimensions.rpm?.available).toBeCloseTo(20, 9);
    // 9 later admissions outrun 7 s of refill: stamped at admission, 20 + 7 - 9 = 18 is the lower reading.
    for (let i = 0; i < 6; i++) later.push(await limiter.acquire(0));
    await time.timers.tickAsync(1_000);
    first.sync({ "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "20" });
    expect(limiter.snapshot().dimensions.rpm?.available).toBeCloseTo(18, 9);
    for (const r of [first, ...later]) r.release();
  });

  it("run applies the response's headers after settling, so a refund they already count is not counted twice", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai" });
    limiter.sync(openai([100, 100], [10_000, 5_000]));
    // The provider charged the estimate of 1,000, then reconciled to 200 before sending the headers.
    await limiter.run(1_000, (r) => {
      r.sync(openai([100, 99], [10_000, 4_800]));
      return { value: null, used: 200 };
    });
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(4_800);
  });

  it("a refund inside run admits the queue only after the response's headers apply, so the level counts what it admits", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai" });
    limiter.sync(openai([100, 100], [10_000, 1_000])); // others drew 9,000: the own count stays at 10,000
    const done = limiter.run(600, async (r) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The provider charged 600 and gave back 400 when the call completed: 800 left, the 700 not yet seen.
      r.sync(openai([100, 99], [10_000, 800]));
      return { value: null, used: 200 };
    });
    // Behind the 600, the 700 waits for the refund (400 left, and 10 s of refill).
    const waiting = limiter.acquire(700);
    await time.timers.tickAsync(100);
    await done;
    (await waiting).release();
    // 800 reported, less the 700 admitted on the refund (admitted before the headers applied, the level read ~500 too
    // high).
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(100);
  });

  it("headers from an older request never undo what a fresher one said", async () => {
    const limiter = new Limiter({ rpm: 100, tpm: 100_000, provider: "openai" });
    const older = await limiter.acquire(100);
    const newer = await limiter.acquire(100);
    await time.timers.tickAsync(1_000); // both have reached the provider
    newer.sync(openai([100, 98], [60_000, 50_000]));
    expect(limiter.snapshot().dimensions.tpm?.capacity).toBe(60_000);
    // The older response arrives late, from before a tier change: ignored.
    older.sync(openai([100, 99], [30_000, 29_000]));
    expect(limiter.snapshot()).toMatchObject({ dimensions: { tpm: { capacity: 60_000, available: 50_000 } } });
    older.release();
    newer.release();
  });
});

describe("limits", () => {
  it("the effective limit is the lower of configured and reported, back up to the configured ceiling", () => {
    const limiter = new Limiter({ tpm: 200_000, provider: "openai" });
    limiter.sync(openai([60, 60], [100_000, 100_000]));
    expect(limiter.snapshot().dimensions.tpm).toMatchObject({ limit: 100_000, capacity: 100_000 });
    limiter.sync(openai([60, 60], [400_000, 400_000])); // a tier upgrade
    expect(limiter.snapshot().dimensions.tpm).toMatchObject({ limit: 200_000, capacity: 200_000 });
  });

  it("a reported dimension nobody configured is added, starting from its remaining", () => {
    const limiter = new Limiter({ tpm: 100_000, provider: "openai" });
    limiter.sync(openai([500, 420], [100_000, 90_000]));
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ limit: 500, windowMs: 60_000, available: 420 });
  });

  it("Groq's -requests headers are a per-day budget", () => {
    const limiter = new Limiter({ provider: "groq" });
    limiter.sync({
      "x-ratelimit-limit-requests": "14400",
      "x-ratelimit-remaining-requests": "14370",
      "x-ratelimit-reset-requests": "2m59.56s",
      "x-ratelimit-limit-tokens": "18000",
      "x-ratelimit-remaining-tokens": "17997",
      "x-ratelimit-reset-tokens": "7.66s",
    });
    expect(limiter.snapshot()).toMatchObject({
      dimensions: {
        rpd: { limit: 14_400, windowMs: 86_400_000, available: 14_370 },
        tpm: { limit: 18_000, windowMs: 60_000, available: 17_997 },
      },
    });
  });

  it("a limiter with no budget starts cautious: one call in flight until headers arrive", async () => {
    const limiter = new Limiter({ provider: "openai" });
    const first = await limiter.acquire(10);
    expect(limiter.tryAcquire(10)).toBeUndefined();
    first.sync(openai([60, 59], [1_000, 990]));
    const second = limiter.tryAcquire(10);
    expect(second).toBeDefined();
    expect(limiter.snapshot().concurrency).toBeUndefined();
    first.release();
    second?.release();
  });

  it("an unknown provider's window is taken for a minute until the triple tells it", () => {
    const limiter = new Limiter();
    limiter.sync({ "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "60" });
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ limit: 60, windowMs: 60_000 });
    // 1 used, full again in 24 minutes: a bucket of 60 per day.
    limiter.sync({
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-reset-requests": "24m0s",
    });
    expect(limiter.snapshot().dimensions.rpm).toBeUndefined();
    expect(limiter.snapshot().dimensions.rpd).toMatchObject({ limit: 60, available: 59 });
  });

  it("a learned limit that a queued request can no longer fit rejects it once three responses in a row confirm it", async () => {
    const limiter = new Limiter({ tpm: 100_000, provider: "openai", initial: "empty" });
    let outcome: unknown;
    const waiting = limiter.acquire(50_000).catch((e: unknown) => (outcome = e));
    for (let i = 0; i < 2; i++) limiter.sync(openai([60, 60], [40_000, 0]));
    await time.timers.tickAsync(0);
    expect(outcome).toBeUndefined();
    limiter.sync(openai([60, 60], [40_000, 0]));
    expect(await waiting).toMatchObject({ code: "REQUEST_TOO_LARGE", dimension: "tpm", capacity: 40_000 });
  });
});

describe("429", () => {
  const tokens429 = {
    error: { type: "tokens", code: "rate_limit_exceeded", message: "Rate limit reached. Please try again in 2.754s." },
  };

  it("pauses the named dimension for the longest hint; requests that do not use it pass", async () => {
    const limiter = new Limiter({ rpm: 100, tpm: 10_000, provider: "openai" });
    // The message's 2.754 s outlasts the header's 1.5 s.
    limiter.sync({ "retry-after-ms": "1500" }, { status: 429, body: tokens429 });
    expect(limiter.tryAcquire(10)).toBeUndefined();
    const free = limiter.tryAcquire(0);
    expect(free).toBeDefined();
    free?.release();
    let admittedAt = -1;
    void limiter.acquire(10).then((r) => {
      admittedAt = performance.now();
      r.release();
    });
    await time.timers.tickAsync(1_500);
    expect(admittedAt).toBe(-1);
    await time.timers.tickAsync(1_254);
    expect(admittedAt).toBe(2_754);
  });

  it("pauses everything when the limit type is unknown", async () => {
    const limiter = new Limiter({ rpm: 100, tpm: 10_000, provider: "openai" });
    limiter.sync({ "retry-after": "2" }, { status: 429 });
    expect(limiter.tryAcquire(0)).toBeUndefined();
    await time.timers.tickAsync(2_000);
    limiter.tryAcquire(0)?.release();
  });

  it("with no hint drains the binding bucket instead of guessing a pause", () => {
    const limiter = new Limiter({ rpm: 100, tpm: 10_000, provider: "openai" });
    limiter.sync(openai([100, 90], [10_000, 2_000]), { status: 429 });
    expect(limiter.snapshot()).toMatchObject({ dimensions: { rpm: { available: 90 }, tpm: { available: 0 } } });
  });

  it("a billing 429 and 5xx/529 change nothing", () => {
    const limiter = new Limiter({ rpm: 100, provider: "openai" });
    limiter.sync(
      { "retry-after": "30" },
      { status: 429, body: { error: { code: "insufficient_quota", type: "insufficient_quota" } } },
    );
    limiter.sync(
      { "retry-after": "30" },
      { status: 529, body: { type: "error", error: { type: "overloaded_error" } } },
    );
    limiter.sync({ "retry-after": "30" }, { status: 503 });
    const r = limiter.tryAcquire(0);
    expect(r).toBeDefined();
    r?.release();
  });

  it("run retries a 429 after its hint, keeping its place at the head", async () => {
    const limiter = new Limiter({ rpm: 100, provider: "openai" });
    const calls: string[] = [];
    let failed = false;
    const rateLimited = Object.assign(new Error("429"), {
      status: 429,
      headers: new Headers({ "retry-after-ms": "1000" }),
      error: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit" },
    });
    const first = limiter.run(
      1,
      async () => {
        calls.push(`first@${performance.now()}`);
        if (!failed) {
          failed = true;
          throw rateLimited;
        }
        return { value: "ok" };
      },
      { retry: { attempts: 2 } },
    );
    await time.timers.tickAsync(0);
    const second = limiter.run(1, async () => {
      calls.push(`second@${performance.now()}`);
      return { value: "ok" };
    });
    await time.timers.tickAsync(1_000);
    await expect(first).resolves.toBe("ok");
    await expect(second).resolves.toBe("ok");
    expect(calls).toEqual(["first@0", "first@1000", "second@1000"]);
  });

  it("run gives up after its attempts, never retries billing or x-should-retry: false", async () => {
    const limiter = new Limiter({ rpm: 1000 });
    let attempts = 0;
    const always429 = async (): Promise<never> => {
      attempts++;
      throw Object.assign(new Error("429"), { status: 429, headers: { "retry-after-ms": "10" } });
    };
    const run = limiter.run(0, always429, { retry: { attempts: 3 } });
    const settled = run.catch((e: unknown) => e);
    await time.timers.tickAsync(100);
    expect(await settled).toMatchObject({ status: 429 });
    expect(attempts).toBe(4);

    attempts = 0;
    const billing = async (): Promise<never> => {
      attempts++;
      throw Object.assign(new Error("quota"), { status: 429, headers: {}, error: { code: "insufficient_quota" } });
    };
    await expect(limiter.run(0, billing, { retry: { attempts: 3 } })).rejects.toThrow("quota");
    const noRetry = async (): Promise<never> => {
      attempts++;
      throw Object.assign(new Error("no"), { status: 429, headers: { "x-should-retry": "false" } });
    };
    await expect(limiter.run(0, noRetry, { retry: { attempts: 3 } })).rejects.toThrow("no");
    expect(attempts).toBe(2);
  });

  it("run reads a 429's absolute reset on the limiter's wall clock, not Date.now()", async () => {
    // The limiter's wall clock runs 30 s ahead of Date.now(); the provider's reset is 5 s after it.
    const aheadMs = 30_000;
    const limiter = new Limiter({
      rpm: 1000,
      clock: { now: () => performance.now(), wallNow: () => Date.now() + aheadMs },
    });
    const attempts: number[] = [];
    const run = limiter.run(
      0,
      async () => {
        attempts.push(performance.now());
        if (attempts.length === 1) {
          const reset = new Date(Date.now() + aheadMs + 5_000).toISOString();
          throw Object.assign(new Error("429"), {
            status: 429,
            headers: { "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": reset },
          });
        }
        return { value: "ok" };
      },
      { retry: { attempts: 1 } },
    );
    await time.timers.tickAsync(6_000);
    await expect(run).resolves.toBe("ok");
    expect(attempts).toEqual([0, 5_000]);
  });

  it("rejects bad retry options at once", async () => {
    const limiter = new Limiter({ rpm: 10 });
    await expect(limiter.run(0, async () => ({ value: 1 }), { retry: { attempts: -1 } })).rejects.toThrow(RangeError);
    await expect(
      limiter.run(0, async () => ({ value: 1 }), { retry: { attempts: 1, maxMs: Number.NaN } }),
    ).rejects.toThrow(RangeError);
  });
});

describe("shared keys", () => {
  it("learns that others drain the key and refills at its share", async () => {
    const limiter = new Limiter({ tpm: 60_000, provider: "openai" });
    // The provider's bucket: others take 2/3 of the rate (40,000 per minute).
    let providerLevel = 0;
    limiter.sync(openai([100, 100], [60_000, 0]));
    for (let second = 1; second <= 60; second++) {
      await time.timers.tickAsync(1_000);
      providerLevel = Math.min(60_000, providerLevel + 1_000) - 666.67;
      const r = limiter.tryAcquire(0);
      r?.sync(openai([100, 100], [60_000, Math.max(0, Math.floor(providerLevel))]));
      r?.release();
    }
    const share = (60_000 - 40_000) / 60_000;
    // Between responses the local bucket now refills at about its third of the rate.
    const before = limiter.snapshot().dimensions.tpm!.available;
    await time.timers.tickAsync(1_000);
    const refilled = limiter.snapshot().dimensions.tpm!.available - before;
    expect(refilled).toBeGreaterThan(1_000 * share * 0.8);
    expect(refilled).toBeLessThan(1_000 * share * 1.2);
  });
});

describe("Azure", () => {
  it("a sub-window allowance with no reset caps the burst, not the rate", () => {
    const limiter = new Limiter({ rpm: 120, tpm: 120_000, provider: "azure" });
    limiter.sync({
      "x-ratelimit-limit-requests": "20",
      "x-ratelimit-remaining-requests": "19",
      "x-ratelimit-limit-tokens": "20000",
      "x-ratelimit-remaining-tokens": "19000",
    });
    expect(limiter.snapshot()).toMatchObject({
      dimensions: {
        rpm: { limit: 120, capacity: 20, available: 19 },
        tpm: { limit: 120_000, capacity: 20_000, available: 19_000 },
      },
    });
  });

  it("with nothing configured, the allowance is a 10-second bucket", () => {
    const limiter = new Limiter({ provider: "azure" });
    limiter.sync({ "x-ratelimit-limit-requests": "20", "x-ratelimit-remaining-requests": "20" });
    expect(limiter.snapshot().dimensions["requests/10s"]).toMatchObject({ limit: 20, windowMs: 10_000, capacity: 20 });
  });
});
