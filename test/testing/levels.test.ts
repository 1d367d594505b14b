import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts" });

describe("the simulated key's levels and room, read from outside", () => {
  it("levels(): what each enforced bucket holds, exact and refilling, none for a budget not given", async () => {
    const provider = createProvider({ rpm: 60, tpm: 6_000, clock: time.clock, latencyMs: 1_000 });
    expect(provider.levels()).toEqual({ rpm: 60, tpm: 6_000 });
    const call = provider.call({ prompt: 1_000, maxTokens: 2_000, actual: 500 });
    expect(provider.levels()).toEqual({ rpm: 59, tpm: 3_000 });
    await time.at(500);
    // Half a second of refill: half a request, 50 tokens; not floored as the headers are.
    expect(provider.levels()).toEqual({ rpm: 59.5, tpm: 3_050 });
    await time.at(1_000);
    await call;
    // A second of refill, and the unused 1,500 of max_tokens refunded.
    expect(provider.levels()).toEqual({ rpm: 60, tpm: 4_600 });
  });

  it("roomFor(): how many calls of a size would be admitted now, one after another; takes nothing", async () => {
    const provider = createProvider({ rpm: 10, tpm: 10_000, concurrency: 4, clock: time.clock, latencyMs: 1_000 });
    // tpm holds 3 calls of 3,000 (9,000 <= 10,000), rpm 10, concurrency 4.
    expect(provider.roomFor({ prompt: 1_000, maxTokens: 2_000 })).toBe(3);
    expect(provider.roomFor({ prompt: 1_000, maxTokens: 2_000 })).toBe(3);
    expect(provider.roomFor({ prompt: 0, maxTokens: 1 })).toBe(4);
    expect(provider.roomFor({ prompt: 20_000, maxTokens: 1 })).toBe(0);
    const calls = [1, 2, 3].map(() => provider.call({ prompt: 1_000, maxTokens: 2_000, actual: 10 }));
    expect(provider.stats().calls.every((c) => c.status === 200)).toBe(true);
    expect(provider.roomFor({ prompt: 1_000, maxTokens: 2_000 })).toBe(0);
    // A 4th, small call fits the tokens left and takes the last slot: nothing fits after it.
    void provider.call({ prompt: 0, maxTokens: 1, actual: 1 });
    expect(provider.roomFor({ prompt: 0, maxTokens: 1 })).toBe(0);
    await time.at(1_000);
    await Promise.all(calls);
    expect(provider.roomFor({ prompt: 0, maxTokens: 1 })).toBe(4);
  });

  it("roomFor() agrees with admission at the edge: exactly one call's worth left admits one", () => {
    const provider = createProvider({ tpm: 3_000, clock: time.clock, latencyMs: 1_000 });
    expect(provider.roomFor({ prompt: 1_000, maxTokens: 2_000 })).toBe(1);
    void provider.call({ prompt: 1_000, maxTokens: 2_000, actual: 1 });
    expect(provider.stats().calls.at(-1)?.status).toBe(200);
    expect(provider.roomFor({ prompt: 1_000, maxTokens: 2_000 })).toBe(0);
    void provider.call({ prompt: 1_000, maxTokens: 2_000, actual: 1 });
    expect(provider.stats().calls.at(-1)?.status).toBe(429);
  });
});
