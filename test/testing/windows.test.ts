import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { CallResult, SimulatedProvider } from "../../src/testing/index.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

const oneRequest = { prompt: 1, maxTokens: 1, actual: 1 };

async function burst(provider: SimulatedProvider, count: number): Promise<CallResult[]> {
  return Promise.all(Array.from({ length: count }, () => provider.call(oneRequest)));
}

const admittedCount = (results: CallResult[]): number => results.filter((r) => r.status === 200).length;

describe('window: "fixed"', () => {
  it("admits twice the limit across a boundary (the artefact real fixed-window servers have)", async () => {
    const provider = createProvider({ rpm: 100, window: "fixed", clock: time.clock });
    await time.at(59_000);
    expect(admittedCount(await burst(provider, 100))).toBe(100);
    const rejected = await provider.call(oneRequest);
    expect(rejected.headers["retry-after-ms"]).toBe("1000");
    expect(rejected.headers["x-ratelimit-reset-requests"]).toBe("1s");
    await time.at(60_000);
    expect(admittedCount(await burst(provider, 101))).toBe(100);
  });

  it("a continuous bucket does not: one minute of rate is all it ever allows in a burst", async () => {
    const provider = createProvider({ rpm: 100, window: "bucket", clock: time.clock });
    await time.at(59_000);
    expect(admittedCount(await burst(provider, 100))).toBe(100);
    await time.at(60_000);
    // 1 s of refill at 100/min is 1.67 requests.
    expect(admittedCount(await burst(provider, 100))).toBe(1);
  });

  it("resets per-day counters at day boundaries of the monotonic clock", async () => {
    const provider = createProvider({ rpd: 2, window: "fixed", dialect: "groq", clock: time.clock });
    await burst(provider, 2);
    await time.at(86_400_000 - 1_000);
    const rejected = await provider.call(oneRequest);
    expect(rejected.status).toBe(429);
    expect(rejected.headers["x-ratelimit-reset-requests"]).toBe("1s");
    await time.at(86_400_000);
    expect(admittedCount(await burst(provider, 3))).toBe(2);
  });
});

describe('window: "azure"', () => {
  it("enforces per-minute limits over 10 s sub-windows of limit / 6 (120 RPM -> 20 per 10 s, as seen on Azure)", async () => {
    const provider = createProvider({ rpm: 120, tpm: 60_000, window: "azure", dialect: "azure", clock: time.clock });
    await time.at(4_000);
    const first = await burst(provider, 20);
    expect(admittedCount(first)).toBe(20);
    expect(first[0]?.headers).toMatchObject({
      "x-ratelimit-limit-requests": "20",
      "x-ratelimit-limit-tokens": "10000",
    });
    expect(first.at(-1)?.headers["x-ratelimit-remaining-requests"]).toBe("0");

    const rejected = await provider.call(oneRequest);
    expect(rejected.status).toBe(429);
    expect(rejected.headers["retry-after-ms"]).toBe("6000");
    expect(rejected.headers["retry-after"]).toBe("6");

    await time.at(10_000);
    expect(admittedCount(await burst(provider, 21))).toBe(20);
  });

  it("gives every sub-window at least 1 and floors the allowance", async () => {
    const provider = createProvider({ rpm: 3, tpm: 1_000, window: "azure", clock: time.clock });
    const results = await burst(provider, 2);
    expect(results.map((r) => r.status)).toEqual([200, 429]);
    expect(results[0]?.headers["x-ratelimit-limit-requests"]).toBe("1");
    expect(results[0]?.headers["x-ratelimit-limit-tokens"]).toBe("166");
  });

  it("keeps per-day limits on day windows", async () => {
    const provider = createProvider({ rpd: 600, window: "azure", dialect: "groq", clock: time.clock });
    expect(admittedCount(await burst(provider, 601))).toBe(600);
  });
});
