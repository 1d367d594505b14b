import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { SimulatedProvider } from "../../src/testing/index.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";
import { parseGoDurationMs } from "./parse-go-duration.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

async function callMany(provider: SimulatedProvider, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => provider.call({ prompt: 0, maxTokens: 1, actual: 1 })));
}

describe("openai dialect", () => {
  it("reproduces OpenAI's header triples: 5000 RPM with 4999 left -> 12ms; 160000 TPM with 158866 left -> 425ms", async () => {
    const provider = createProvider({ rpm: 5_000, tpm: 160_000, clock: time.clock });
    const result = await provider.call({ prompt: 134, maxTokens: 1_000, actual: 1_000 });
    expect(result.headers).toEqual({
      date: new Date(EPOCH_MS).toUTCString(),
      "x-request-id": "req_00000001",
      "x-ratelimit-limit-requests": "5000",
      "x-ratelimit-remaining-requests": "4999",
      "x-ratelimit-reset-requests": "12ms",
      "x-ratelimit-limit-tokens": "160000",
      "x-ratelimit-remaining-tokens": "158866",
      "x-ratelimit-reset-tokens": "425ms",
    });
  });

  it("sends minute-long resets in Go style (6m0s) and omits the groups of unconfigured limits", async () => {
    const provider = createProvider({ tpm: 150_000, clock: time.clock });
    const result = await provider.call({ prompt: 100_000, maxTokens: 50_000, actual: 50_000 });
    expect(result.headers).toMatchObject({ "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1m0s" });
    expect(Object.keys(result.headers).filter((name) => name.endsWith("-requests"))).toEqual([]);
  });

  it("stamps 429s with the same headers plus retry-after, and clamps remaining at 0 while in debt", async () => {
    const provider = createProvider({ rpm: 1, tpm: 1_000, clock: time.clock });
    await provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
    const rejected = await provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
    expect(rejected.headers).toMatchObject({
      "x-ratelimit-limit-requests": "1",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1m0s",
      "retry-after": "60",
      "retry-after-ms": "60000",
    });
  });

  it("keeps reset = (limit - remaining) x window / limit, to within one unit's refill time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1_000, max: 1_000_000 }),
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 20_000 }),
            fc.integer({ min: 0, max: 2_000 }),
            fc.integer({ min: 1, max: 2_000 }),
          ),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        async (rpm, tpm, calls) => {
          const provider = createProvider({ rpm, tpm, clock: time.clock });
          for (const [gap, prompt, maxTokens] of calls) {
            await time.at(time.clock.now() + gap);
            const { headers } = await provider.call({ prompt, maxTokens, actual: maxTokens });
            for (const [suffix, limit] of [
              ["requests", rpm],
              ["tokens", tpm],
            ] as const) {
              const remaining = Number(headers[`x-ratelimit-remaining-${suffix}`]);
              const reset = parseGoDurationMs(headers[`x-ratelimit-reset-${suffix}`] ?? "");
              const unitMs = 60_000 / limit;
              expect(Number(headers[`x-ratelimit-limit-${suffix}`])).toBe(limit);
              expect(reset).toBeLessThanOrEqual((limit - remaining) * unitMs + 0.5);
              expect(reset).toBeGreaterThanOrEqual((limit - remaining - 1) * unitMs - 0.5);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("groq dialect", () => {
  it("reports the per-day request bucket under -requests: 30 of 14400 used, 440 ms later -> 2m59.56s", async () => {
    const provider = createProvider({ rpd: 14_400, rpm: 30, tpm: 18_000, dialect: "groq", clock: time.clock });
    await callMany(provider, 29);
    await time.at(440);
    const result = await provider.call({ prompt: 0, maxTokens: 1, actual: 1 });
    expect(result.headers).toMatchObject({
      "x-ratelimit-limit-requests": "14400",
      "x-ratelimit-remaining-requests": "14370",
      "x-ratelimit-reset-requests": "2m59.56s",
      "x-ratelimit-limit-tokens": "18000",
      // 29 tokens taken at 0 were refilled by 440 ms (132 tokens); this call takes 1.
      "x-ratelimit-remaining-tokens": "17999",
    });
  });
});

describe("azure dialect", () => {
  it("sends limit and remaining without reset, and the headers only Azure sends", async () => {
    const provider = createProvider({ rpm: 120, tpm: 60_000, dialect: "azure", clock: time.clock });
    const result = await provider.call({ prompt: 100, maxTokens: 100, actual: 100 });
    expect(result.headers).toEqual({
      date: new Date(EPOCH_MS).toUTCString(),
      "apim-request-id": "req_00000001",
      "x-ratelimit-limit-requests": "120",
      "x-ratelimit-remaining-requests": "119",
      "x-ratelimit-limit-tokens": "60000",
      "x-ratelimit-remaining-tokens": "59800",
      "x-ms-region": "Simulated",
    });
  });
});

describe("anthropic dialect", () => {
  it("sends requests, tokens, input and output groups with RFC 3339 resets of full replenishment", async () => {
    const provider = createProvider({
      rpm: 50,
      tpm: 100_000,
      itpm: 80_000,
      otpm: 16_000,
      dialect: "anthropic",
      clock: time.clock,
    });
    await time.at(250);
    const result = await provider.call({ prompt: 2_400, maxTokens: 1_000, actual: 1_000 });
    expect(result.headers).toEqual({
      date: "Mon, 24 Feb 2025 22:24:32 GMT",
      "request-id": "req_00000001",
      // 1 of 50/min: full again 1.2 s later, at 22:24:33.45 -> rounded up to the second.
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "49",
      "anthropic-ratelimit-requests-reset": "2025-02-24T22:24:34Z",
      // Tokens report the tightest token limit: OTPM with 15000 left (ITPM has 77600, TPM 96600).
      "anthropic-ratelimit-tokens-limit": "16000",
      "anthropic-ratelimit-tokens-remaining": "15000",
      "anthropic-ratelimit-tokens-reset": "2025-02-24T22:24:36Z",
      // Input and output remaining are rounded to the nearest thousand (77600 -> 78000).
      // Input: 2400 at 80000/min is 1.8 s, full at 22:24:34.05 -> rounded up.
      "anthropic-ratelimit-input-tokens-limit": "80000",
      "anthropic-ratelimit-input-tokens-remaining": "78000",
      "anthropic-ratelimit-input-tokens-reset": "2025-02-24T22:24:35Z",
      // Output: 1000 at 16000/min is 3.75 s, full at exactly 22:24:36.
      "anthropic-ratelimit-output-tokens-limit": "16000",
      "anthropic-ratelimit-output-tokens-remaining": "15000",
      "anthropic-ratelimit-output-tokens-reset": "2025-02-24T22:24:36Z",
    });
  });

  it("answers 429 with Anthropic's error body, the rate-limit headers and retry-after", async () => {
    const provider = createProvider({ rpm: 1, dialect: "anthropic", clock: time.clock });
    await provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
    const rejected = await provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
    expect(rejected.status).toBe(429);
    expect(rejected.body).toEqual({
      type: "error",
      error: {
        type: "rate_limit_error",
        message:
          "Rate limit reached on requests per min (RPM): Limit 1, Used 1, Requested 1. Please try again in 1m0s.",
      },
    });
    expect(rejected.headers).toMatchObject({
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": "2025-02-24T22:25:32Z",
      "retry-after": "60",
      "request-id": "req_00000002",
    });
  });

  it("uses TPM alone for the tokens group when no ITPM/OTPM is configured", async () => {
    const provider = createProvider({ tpm: 40_000, dialect: "anthropic", clock: time.clock });
    const result = await provider.call({ prompt: 1_234, maxTokens: 100, actual: 100 });
    expect(result.headers["anthropic-ratelimit-tokens-remaining"]).toBe("38666");
    expect(
      Object.keys(result.headers).some((name) => name.includes("input-tokens") || name.includes("output-tokens")),
    ).toBe(false);
  });
});

describe("every dialect", () => {
  it("stamps headers when the response is sent, after latency and reconciliation", async () => {
    const provider = createProvider({ rpm: 60, clock: time.clock, latencyMs: 2_500 });
    const call = provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
    await time.at(2_500);
    const { headers } = await call;
    expect(headers.date).toBe(new Date(EPOCH_MS + 2_500).toUTCString());
    // 1 used at 0, 2.5 refilled since: full again.
    expect(headers["x-ratelimit-remaining-requests"]).toBe("60");
  });
});
