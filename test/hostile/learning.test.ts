import { describe, expect, it } from "vitest";
import { Limiter, parseRateLimitHeaders, RequestTooLargeError } from "../../src/index.js";
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

  it("below the configured limit, a provisional one caps the burst only, decaying back halfway per window", async () => {
    const limiter = new Limiter({ rpm: 60, provider: "openai", initial: "full" });
    limiter.sync({ "x-ratelimit-limit-requests": "2", "x-ratelimit-remaining-requests": "2" });
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ limit: 60, capacity: 2 });
    await time.timers.tickAsync(60_000);
    // Any later response (here one that says nothing of requests) applies the decay.
    limiter.sync(tokens("100000"));
    expect(limiter.snapshot().dimensions.rpm?.capacity).toBeCloseTo(31, 5);
  });

  it("limit 1, remaining 0 after a normal response on a 60 rpm limiter: the next call within a second, not 20 minutes", async () => {
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
    const start = performance.now();
    let admittedAt = Infinity;
    void limiter.acquire(0).then((r) => {
      admittedAt = performance.now();
      r.release();
    });
    await time.timers.tickAsync(60_000);
    expect(admittedAt - start).toBeLessThanOrEqual(1_000);
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
