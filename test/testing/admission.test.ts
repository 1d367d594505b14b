import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { CallResult, SimulatedProvider } from "../../src/testing/index.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

const oneRequest = { prompt: 10, maxTokens: 10, actual: 10 };

function fire(provider: SimulatedProvider, count: number, request = oneRequest): Promise<CallResult[]> {
  return Promise.all(Array.from({ length: count }, () => provider.call(request)));
}

describe("admission against a continuous bucket (C = 100 requests, r = 100/min)", () => {
  it("admits 100 at once, rejects the 101st with retry-after-ms 600, and admits it at 0.6 s", async () => {
    const provider = createProvider({ rpm: 100, clock: time.clock });
    const burst = await fire(provider, 100);
    expect(burst.every((r) => r.status === 200)).toBe(true);

    const rejected = await provider.call(oneRequest);
    expect(rejected.status).toBe(429);
    expect(rejected.headers["retry-after-ms"]).toBe("600");
    expect(rejected.headers["retry-after"]).toBe("1");

    await time.at(599);
    expect((await provider.call(oneRequest)).status).toBe(429);
    await time.at(600);
    expect((await provider.call(oneRequest)).status).toBe(200);
  });

  it("drains a burst of 500 in (500 - 100) / 100 = 4 minutes when each 429 is retried after retry-after-ms", async () => {
    const provider = createProvider({ rpm: 100, clock: time.clock });
    let lastAdmittedAt = 0;
    for (let admitted = 0; admitted < 500;) {
      const result = await provider.call(oneRequest);
      if (result.status === 200) {
        admitted += 1;
        lastAdmittedAt = time.clock.now();
      } else {
        await time.at(time.clock.now() + Number(result.headers["retry-after-ms"]));
      }
    }
    expect(lastAdmittedAt).toBe(240_000);
  });

  it("a rejected call consumes nothing on any dimension", async () => {
    const provider = createProvider({ rpm: 10, tpm: 1_000, clock: time.clock });
    const first = await provider.call({ prompt: 500, maxTokens: 400, actual: 400 });
    expect(first.headers).toMatchObject({
      "x-ratelimit-remaining-requests": "9",
      "x-ratelimit-remaining-tokens": "100",
    });

    const tooMany = await provider.call({ prompt: 200, maxTokens: 100, actual: 100 });
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers).toMatchObject({
      "x-ratelimit-remaining-requests": "9",
      "x-ratelimit-remaining-tokens": "100",
    });

    const fits = await provider.call({ prompt: 50, maxTokens: 50, actual: 50 });
    expect(fits.status).toBe(200);
    expect(fits.headers).toMatchObject({ "x-ratelimit-remaining-requests": "8", "x-ratelimit-remaining-tokens": "0" });
  });

  it("names the dimension that binds longest, with OpenAI's numbers in the message", async () => {
    const provider = createProvider({ rpm: 10, tpm: 10_000, clock: time.clock });
    await provider.call({ prompt: 8_000, maxTokens: 1_298, actual: 1_298 });
    const result = await provider.call({ prompt: 161, maxTokens: 1_000, actual: 10 });
    expect(result.status).toBe(429);
    // TPM is short by 459 tokens (2.754 s at 10000/min); RPM has room.
    expect(result.headers["retry-after-ms"]).toBe("2754");
    expect(result.headers["retry-after"]).toBe("3");
    expect(result.body).toEqual({
      error: {
        message:
          "Rate limit reached on tokens per min (TPM): Limit 10000, Used 9298, Requested 1161. Please try again in 2.754s.",
        type: "tokens",
        param: null,
        code: "rate_limit_exceeded",
      },
    });
    expect(provider.stats().rejectedBy).toMatchObject({ tpm: 1, rpm: 0 });
  });

  it("rejects a call larger than the bucket at once, without a retry hint", async () => {
    const provider = createProvider({ tpm: 1_000, clock: time.clock });
    const result = await provider.call({ prompt: 800, maxTokens: 400, actual: 1 });
    expect(result.status).toBe(429);
    expect(result.headers["retry-after"]).toBeUndefined();
    expect(result.headers["retry-after-ms"]).toBeUndefined();
    expect(result.body).toMatchObject({
      error: {
        type: "tokens",
        message: expect.stringMatching(/^Request too large on tokens per min \(TPM\): Limit 1000, Requested 1200\./),
      },
    });
    expect(provider.stats().calls[0]).toMatchObject({ status: 429, rejectedBy: "tpm" });
    expect(provider.stats().calls[0]?.retryAfterMs).toBeUndefined();
  });

  it("admits exactly the calls the (sigma, rho) form of a token bucket allows", async () => {
    // An independent model: a bucket of capacity C refilled at r, full at the start, has room for
    // one more request at t iff for every earlier admission time s <= t (and s = t):
    // admitted in [s, t] + 1 <= C + r (t - s).
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 5 })), {
          minLength: 1,
          maxLength: 60,
        }),
        async (limit, arrivals) => {
          const provider = createProvider({ rpm: limit, clock: time.clock });
          for (const [gap, count] of arrivals) {
            await time.at(time.clock.now() + gap);
            await fire(provider, count);
          }
          const admittedAt: number[] = [];
          for (const call of provider.stats().calls) {
            const t = call.receivedAt;
            const deficit = Math.max(
              ...[...admittedAt, t].map(
                (s) => admittedAt.filter((a) => a >= s).length + 1 - limit - (limit * (t - s)) / 60_000,
              ),
            );
            if (call.status === 200) {
              expect(deficit).toBeLessThanOrEqual(1e-6 + 1e-9);
              admittedAt.push(t);
            } else {
              expect(deficit).toBeGreaterThan(1e-6 - 1e-9);
            }
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("concurrency", () => {
  it("holds a slot until the response completes and hints the earliest completion", async () => {
    const provider = createProvider({ concurrency: 2, latencyMs: 1_000, clock: time.clock });
    const running = fire(provider, 2);
    const third = await provider.call(oneRequest);
    expect(third.status).toBe(429);
    expect(third.headers["retry-after-ms"]).toBe("1000");
    expect(third.body).toMatchObject({
      error: { type: "requests", message: expect.stringContaining("concurrent requests: Limit 2, Used 2") },
    });

    await time.at(300);
    expect((await provider.call(oneRequest)).headers["retry-after-ms"]).toBe("700");
    expect(provider.stats()).toMatchObject({ inFlight: 2, maxInFlight: 2 });

    await time.at(1_000);
    await running;
    expect(provider.stats().inFlight).toBe(0);
    const admitted = provider.call(oneRequest);
    expect(provider.stats().inFlight).toBe(1);
    await time.at(2_000);
    expect((await admitted).status).toBe(200);
    expect(provider.stats()).toMatchObject({ served: 3, rejected: 2, rejectedBy: { concurrency: 2 }, maxInFlight: 2 });
  });
});

describe("latency", () => {
  it("completes an admitted call after latencyMs(call), on the global setTimeout", async () => {
    const provider = createProvider({ clock: time.clock, latencyMs: (c) => 300 + 15 * c.actual });
    let settled = false;
    const pending = provider.call({ prompt: 800, maxTokens: 512, actual: 240 }).then((r) => {
      settled = true;
      return r;
    });
    await time.at(300 + 15 * 240 - 1);
    expect(settled).toBe(false);
    await time.at(300 + 15 * 240);
    expect((await pending).status).toBe(200);
    expect(provider.stats().calls[0]).toMatchObject({ receivedAt: 0, completedAt: 3_900, actual: 240 });
  });

  it("answers a 429 at once, without waiting for latency", async () => {
    const provider = createProvider({ rpm: 1, clock: time.clock, latencyMs: 5_000 });
    void provider.call(oneRequest);
    expect((await provider.call(oneRequest)).status).toBe(429);
  });

  it("rejects a latency function result setTimeout cannot honour, consuming nothing", async () => {
    const provider = createProvider({ rpm: 5, clock: time.clock, latencyMs: () => Number.NaN });
    await expect(provider.call(oneRequest)).rejects.toThrow(RangeError);
    expect(provider.stats()).toMatchObject({ served: 0, rejected: 0, inFlight: 0, calls: [] });
  });
});

describe("stats", () => {
  it("counts served and rejected calls, tokens charged and used, and keeps per-call records", async () => {
    const provider = createProvider({ rpm: 2, clock: time.clock, latencyMs: 100 });
    const calls = fire(provider, 3, { prompt: 100, maxTokens: 50, actual: 20 });
    await time.at(100);
    await calls;
    expect(provider.stats()).toEqual({
      served: 2,
      rejected: 1,
      rejectedBy: { rpm: 1, rpd: 0, tpm: 0, tpd: 0, itpm: 0, otpm: 0, concurrency: 0 },
      inFlight: 0,
      maxInFlight: 2,
      tokensCharged: 300,
      tokensUsed: 240,
      calls: [
        {
          id: "00000001",
          sentAt: 0,
          receivedAt: 0,
          status: 200,
          prompt: 100,
          maxTokens: 50,
          actual: 20,
          completedAt: 100,
        },
        {
          id: "00000002",
          sentAt: 0,
          receivedAt: 0,
          status: 200,
          prompt: 100,
          maxTokens: 50,
          actual: 20,
          completedAt: 100,
        },
        {
          id: "00000003",
          sentAt: 0,
          receivedAt: 0,
          status: 429,
          prompt: 100,
          maxTokens: 50,
          rejectedBy: "rpm",
          retryAfterMs: 30_000,
        },
      ],
    });
  });
});
