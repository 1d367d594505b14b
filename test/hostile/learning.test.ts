import { describe, expect, it } from "vitest";
import { Limiter, RequestTooLargeError } from "../../src/index.js";
import { parseRateLimitHeaders } from "../../src/headers/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** OpenAI's token triple with a hostile limit. */
function tokens(limit: string, remaining = limit, reset = "1s"): Record<string, string> {
  return {
    "x-ratelimit-limit-tokens": limit,
    "x-ratelimit-remaining-tokens": remaining,
    "x-ratelimit-reset-tokens": reset,
  };
}

/** Admits and releases a call of `tokens` tokens within `ms` of fake time, or says why not. */
/** How long, in virtual ms, the next call waits for admission (Infinity: not within a minute). */
async function waitForNext(limiter: Limiter): Promise<number> {
  const start = performance.now();
  let admittedAt = Infinity;
  void limiter.acquire(0).then((r) => {
    admittedAt = performance.now();
    r.release();
  });
  await time.timers.tickAsync(60_000);
  return admittedAt - start;
}

async function admits(limiter: Limiter, estimate: number, ms = 60_000): Promise<boolean | Error> {
  let outcome: boolean | Error = false;
  limiter.acquire(estimate).then(
    (r) => {
      outcome = true;
      r.release();
    },
    (e: Error) => (outcome = e),
  );
  await time.timers.tickAsync(ms);
  return outcome;
}

describe("a hostile limit: provisional until confirmed", () => {
  it.each(["1", "0.5", "0.000001"])("x-ratelimit-limit-tokens: %s is read as a whole limit of at least 1", (limit) => {
    const view = parseRateLimitHeaders(tokens(limit, "0"), { provider: "openai" });
    expect(view.dimensions.tpm?.limit).toBe(1);
    expect(view.dimensions.tpm?.remaining).toBe(0);
  });

  it.each(["1", "0.5", "0.000001"])(
    "with nothing configured, one response with limit %s: a larger call goes out as a probe, not RequestTooLarge",
    async (limit) => {
      const limiter = new Limiter({ provider: "openai", initial: "full" });
      limiter.sync(tokens(limit));
      expect(await admits(limiter, 1_000)).toBe(true);
    },
  );

  it("the same limit from three responses in a row is confirmed: then a call too large for it is refused at once", async () => {
    const limiter = new Limiter({ provider: "openai", initial: "full" });
    for (let i = 0; i < 2; i++) {
      limiter.sync(tokens("1"));
      expect(await admits(limiter, 1_000)).toBe(true);
    }
    limiter.sync(tokens("1"));
    await expect(limiter.acquire(1_000)).rejects.toThrow(RequestTooLargeError);
  });

  it("a configured limit still makes a call too large at once, whatever a response says", async () => {
    const limiter = new Limiter({ tpm: 10_000, provider: "openai", initial: "full" });
    limiter.sync(tokens("1"));
    await expect(limiter.acquire(20_000)).rejects.toThrow(RequestTooLargeError);
    expect(await admits(limiter, 5_000)).toBe(true);
  });

  it("below the configured limit, a provisional one decays back toward it, halfway per window", async () => {
    const limiter = new Limiter({ rpm: 60, provider: "openai", initial: "full" });
    limiter.sync({ "x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "2" });
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ limit: 2, capacity: 2 });
    await time.timers.tickAsync(60_000);
    // Any later response (here one that says nothing of requests) applies the decay.
    limiter.sync(tokens("100000"));
    expect(limiter.snapshot().dimensions.rpm?.limit).toBeCloseTo(31, 5);
    expect(limiter.snapshot().dimensions.rpm?.capacity).toBeCloseTo(31, 5);
  });

  it("a provisional limit refills no slower than its own reset implies: limit 1, reset 1 s (read as late as 3 s) is 20 a minute", () => {
    const limiter = new Limiter({ provider: "openai" });
    limiter.sync({
      "x-ratelimit-limit-requests": "1",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1s",
    });
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ limit: 20, capacity: 1 });
  });

  it("limit 1, remaining 0 after a normal response on a 60 rpm limiter: the next call within seconds, not 20 minutes", async () => {
    const limiter = new Limiter({ rpm: 60, provider: "openai", initial: "full" });
    const first = await limiter.acquire(0);
    first.sync({
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-reset-requests": "1s",
    });
    first.release();
    await time.timers.tickAsync(1_000);
    const second = await limiter.acquire(0);
    second.sync({
      "x-ratelimit-limit-requests": "1",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1s",
    });
    second.release();
    // The refill the reset implies (one in 3 s at the slowest reading of "1s"), not one a minute.
    expect(await waitForNext(limiter)).toBeLessThanOrEqual(3_000);
  });

  it("a waiter queued when a provisional limit arrives is not rejected: it goes out as a probe", async () => {
    const limiter = new Limiter({ provider: "openai", concurrency: 1, initial: "full" });
    const first = await limiter.acquire(10);
    let outcome: unknown;
    limiter.acquire(5_000).then(
      (r) => {
        outcome = "admitted";
        r.release();
      },
      (e: unknown) => (outcome = e),
    );
    first.sync(tokens("1"));
    first.release();
    await time.timers.tickAsync(1_000);
    expect(outcome).toBe("admitted");
  });
});

describe("a hostile reset: beyond its window, no window evidence", () => {
  it("ten responses whose reset stays 24 h ahead leave a per-minute budget a bucket: drained, it refills in seconds", async () => {
    const limiter = new Limiter({ rpm: 60, provider: "openai", initial: "full" });
    // Five calls a second, each response counting them all (the provider's count falls as this limiter's does).
    for (let i = 0; i < 10; i++) {
      for (let n = 0; n < 5; n++) (await limiter.acquire(0)).release();
      const remaining = Math.max(0, 60 - 5 * (i + 1) + i);
      limiter.sync({
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": String(remaining),
        "x-ratelimit-reset-requests": "24h0m0s",
      });
      await time.timers.tickAsync(1_000);
    }
    expect(limiter.snapshot().dimensions.rpm?.resetInMs).toBeUndefined();
    for (let r = limiter.tryAcquire(0); r !== undefined; r = limiter.tryAcquire(0)) r.release();
    expect(await waitForNext(limiter)).toBeLessThanOrEqual(1_000);
  });
});

describe("unbounded learning, bounded", () => {
  it("an IETF window of 31.7 years is read as a month", () => {
    const view = parseRateLimitHeaders(
      { "ratelimit-policy": '"p";q=10;w=1000000000', ratelimit: '"p";r=0;t=1' },
      { provider: "ietf" },
    );
    expect(Object.values(view.dimensions)).toMatchObject([{ limit: 10, windowMs: 30 * 86_400_000 }]);
  });

  it("a sender varying w adds at most 16 learned dimensions, however many responses", () => {
    const limiter = new Limiter({ rpm: 600, provider: "ietf" });
    for (let w = 1; w <= 2_000; w++) limiter.sync({ "ratelimit-policy": `"p";q=100;w=${w}`, ratelimit: '"p";r=50' });
    const names = Object.keys(limiter.snapshot().dimensions);
    expect(names).toHaveLength(1 + 16);
    // The least recently read went: the last 16 windows stay.
    expect(names).toContain("requests/2000s");
    expect(names).not.toContain("requests/1984s");
  });
});

describe("the provider's own request too large", () => {
  it("confirms the token limit its 429 reports at once: the next call too large for it is refused", async () => {
    const limiter = new Limiter({ provider: "openai", initial: "full" });
    const body = {
      error: {
        message:
          "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 36000.",
        type: "tokens",
        code: "rate_limit_exceeded",
      },
    };
    limiter.sync(tokens("30000"), { status: 429, body });
    await expect(limiter.acquire(36_000)).rejects.toThrow(RequestTooLargeError);
  });

  it("another 429 confirms nothing: the call goes out as a probe", async () => {
    const limiter = new Limiter({ provider: "openai", initial: "full" });
    const body = { error: { message: "Rate limit reached for gpt-4o.", type: "tokens", code: "rate_limit_exceeded" } };
    limiter.sync(tokens("30000"), { status: 429, body });
    expect(await admits(limiter, 36_000, 120_000)).toBe(true);
  });
});
