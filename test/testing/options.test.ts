import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { CallRequest, ProviderOptions } from "../../src/testing/index.js";
import { installFakeTime } from "../fake-time.js";

describe("createProvider options", () => {
  it.each<[string, unknown, ErrorConstructor, RegExp]>([
    ["an unknown option", { rpM: 5 }, TypeError, /unknown option "rpM"/],
    ["a non-number limit", { rpm: "5" }, TypeError, /rpm must be a number/],
    ["a zero limit", { tpm: 0 }, RangeError, /tpm must be a positive integer/],
    ["a fractional limit", { rpd: 1.5 }, RangeError, /rpd must be a positive integer/],
    ["a negative concurrency", { concurrency: -1 }, RangeError, /concurrency must be a positive integer/],
    [
      "an unknown dialect",
      { dialect: "mistral" },
      RangeError,
      /dialect must be one of "openai", "anthropic", "groq", "azure"/,
    ],
    ["a non-string window", { window: 5 }, TypeError, /window must be a string/],
    ["an unknown outputCharge", { outputCharge: "later" }, RangeError, /outputCharge must be one of/],
    ["a negative latency", { latencyMs: -1 }, RangeError, /latencyMs must be between 0 and 2147483647/],
    ["a latency setTimeout cannot honour", { latencyMs: 2 ** 31 }, RangeError, /latencyMs must be between/],
    ["a negative arrival delay", { arrivalDelayMs: -1 }, RangeError, /arrivalDelayMs must be between 0 and 2147483647/],
    ["a non-number arrival delay", { arrivalDelayMs: "100" }, TypeError, /arrivalDelayMs must be a number, got string/],
    [
      "an unknown stampHeaders",
      { stampHeaders: "response" },
      RangeError,
      /stampHeaders must be one of "admission", "completion"/,
    ],
    ["a non-integer seed", { seed: 0.5 }, RangeError, /seed must be an integer/],
    ["a non-function answerTokens", { answerTokens: 5 }, TypeError, /answerTokens must be a function/],
    [
      "a clock without wallNow",
      { clock: { now: () => 0 } },
      TypeError,
      /clock must be an object with now\(\) and wallNow\(\)/,
    ],
    ["options that are not an object", null, TypeError, /options must be an object/],
  ])("rejects %s", (_, options, errorClass, message) => {
    expect(() => createProvider(options as ProviderOptions)).toThrow(errorClass);
    expect(() => createProvider(options as ProviderOptions)).toThrow(message);
  });
});

describe("provider.call request checks", () => {
  const provider = createProvider();
  it.each<[string, unknown, ErrorConstructor]>([
    ["a missing prompt", { maxTokens: 1 }, TypeError],
    ["a negative prompt", { prompt: -1, maxTokens: 1 }, RangeError],
    ["a zero maxTokens", { prompt: 1, maxTokens: 0 }, RangeError],
    ["a fractional actual", { prompt: 1, maxTokens: 10, actual: 1.5 }, RangeError],
    ["an actual above maxTokens", { prompt: 1, maxTokens: 10, actual: 11 }, RangeError],
    ["a non-string model", { prompt: 1, maxTokens: 10, model: 4 }, TypeError],
  ])("rejects %s", async (_, request, errorClass) => {
    await expect(provider.call(request as CallRequest)).rejects.toThrow(errorClass);
    expect(provider.stats().calls).toEqual([]);
  });
});

describe("the default clock", () => {
  it("reads performance.now() and Date.now() at call time, so fake timers drive it", async () => {
    const { timers } = installFakeTime();
    try {
      const provider = createProvider({ rpm: 1 });
      expect((await provider.call({ prompt: 1, maxTokens: 1, actual: 1 })).status).toBe(200);
      const rejected = await provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
      expect(rejected.headers).toMatchObject({ "retry-after-ms": "60000", date: "Thu, 01 Jan 2026 00:00:00 GMT" });
      await timers.tickAsync(60_000);
      expect((await provider.call({ prompt: 1, maxTokens: 1, actual: 1 })).status).toBe(200);
    } finally {
      timers.uninstall();
    }
  });
});
