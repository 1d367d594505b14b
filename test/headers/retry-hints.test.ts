import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { classifyFailure } from "../../src/headers/failures.js";

const NOW = Date.UTC(2025, 2, 7, 0, 0, 0);

const openAiTokens = {
  error: {
    message:
      "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 10000, Used 9298, Requested 1161. Please try again in 2.754s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    type: "tokens",
    param: null,
    code: "rate_limit_exceeded",
  },
};

describe("classifyFailure: kinds", () => {
  it.each([
    ["OpenAI 429 on tokens", { status: 429, body: openAiTokens }, "rate"],
    [
      "OpenAI 429 insufficient_quota",
      {
        status: 429,
        body: {
          error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" },
        },
      },
      "billing",
    ],
    [
      "OpenAI billing_hard_limit_reached",
      { status: 400, body: { error: { code: "billing_hard_limit_reached" } } },
      "billing",
    ],
    [
      "Anthropic billing_error",
      { status: 400, body: { type: "error", error: { type: "billing_error", message: "..." } } },
      "billing",
    ],
    [
      "Anthropic 429 enforced_spend_limit_reached",
      {
        status: 429,
        body: {
          type: "error",
          error: { type: "rate_limit_error", message: "...", details: { error_code: "enforced_spend_limit_reached" } },
        },
      },
      "billing",
    ],
    [
      "Anthropic 429 ramp_limit_exceeded is a rate",
      {
        status: 429,
        body: { type: "error", error: { type: "rate_limit_error", details: { error_code: "ramp_limit_exceeded" } } },
      },
      "rate",
    ],
    ["402", { status: 402 }, "billing"],
    [
      "Anthropic 529",
      { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      "overloaded",
    ],
    [
      "overloaded_error with no status (a streamed error event)",
      { body: { type: "error", error: { type: "overloaded_error" } } },
      "overloaded",
    ],
    ["rate_limit_error with no status", { body: { type: "error", error: { type: "rate_limit_error" } } }, "rate"],
    ["500", { status: 500 }, "server"],
    ["503", { status: 503, body: "upstream connect error" }, "server"],
    ["400", { status: 400, body: { error: { type: "invalid_request_error" } } }, "other"],
    ["408", { status: 408 }, "other"],
    ["no status, no body (a connection error)", new Error("ECONNRESET"), "other"],
    ["a status out of range", { status: 9999 }, "other"],
    ["nothing", undefined, "other"],
  ] as const)("%s -> %s", (_, failure, kind) => {
    expect(classifyFailure(failure).kind).toBe(kind);
  });
});

describe("classifyFailure: retry hints", () => {
  it("reads OpenAI's 429 body: the dimension and the message's delay", () => {
    expect(classifyFailure({ status: 429, body: openAiTokens })).toEqual({
      kind: "rate",
      quotaWindow: "minute",
      dimension: "tokens",
      retryAfterMs: 2754,
    });
    expect(classifyFailure({ status: 429, body: JSON.stringify(openAiTokens) })).toEqual({
      kind: "rate",
      quotaWindow: "minute",
      dimension: "tokens",
      retryAfterMs: 2754,
    });
  });

  it.each([
    ["Please try again in 2.754s.", 2754],
    ["Please try again in 1m30s.", 90_000],
    ["Please try again in 20ms.", 20],
    ["Please try again in 6m0s. Visit ...", 360_000],
    ["Please retry after 6 seconds.", 6_000],
    ["Try again in 1 second", 1_000],
    ["try again in a moment", undefined],
    ["Please try again in -5s.", undefined],
  ])("message %j -> %s ms", (message, ms) => {
    expect(classifyFailure({ status: 429, body: { error: { message, type: "requests" } } }).retryAfterMs).toBe(ms);
  });

  it("takes the dimension from the message, then from the exhausted headers", () => {
    const fromMessage = classifyFailure({
      status: 429,
      body: {
        error: { message: "Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3" },
      },
    });
    expect(fromMessage.dimension).toBe("requests");
    const fromHeaders = classifyFailure({
      status: 429,
      headers: {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "20",
        "anthropic-ratelimit-output-tokens-limit": "16000",
        "anthropic-ratelimit-output-tokens-remaining": "0",
        "retry-after": "12",
      },
      body: { type: "error", error: { type: "rate_limit_error", message: "..." } },
    });
    expect(fromHeaders).toEqual({ kind: "rate", dimension: "tokens", retryAfterMs: 12_000 });
  });

  it("Together's dynamic error types name the dimension", () => {
    const body = { error: { message: "...", type: "dynamic_token_limited" } };
    expect(classifyFailure({ status: 429, body }).dimension).toBe("tokens");
    expect(classifyFailure({ status: 429, body: { error_type: "dynamic_request_limited" } }).dimension).toBe(
      "requests",
    );
  });

  it("takes the longest of retry-after-ms, retry-after and the message", () => {
    const body = openAiTokens;
    expect(
      classifyFailure({ status: 429, headers: { "retry-after-ms": "1500", "retry-after": "20" }, body }).retryAfterMs,
    ).toBe(20_000);
    expect(classifyFailure({ status: 429, headers: { "retry-after-ms": "1500" }, body }).retryAfterMs).toBe(2754);
    expect(classifyFailure({ status: 429, headers: { "retry-after": "20" }, body }).retryAfterMs).toBe(20_000);
    expect(classifyFailure({ status: 429, headers: {}, body }).retryAfterMs).toBe(2754);
    // Azure AI Foundry: both headers, disagreeing.
    const foundry = { "Retry-After": "1", "Retry-After-Ms": "0" };
    expect(classifyFailure({ status: 429, headers: foundry }).retryAfterMs).toBe(1_000);
  });

  it("bounds every hint at a month", () => {
    const month = 31 * 86_400_000;
    expect(classifyFailure({ status: 429, headers: { "retry-after": String(366 * 86_400) } }).retryAfterMs).toBe(month);
    const message = { error: { message: "Please try again in 99999999999 seconds." } };
    expect(classifyFailure({ status: 429, body: message }).retryAfterMs).toBe(month);
    const openRouter = { error: { code: 429, metadata: { retry_after_seconds: 1e300 } } };
    expect(classifyFailure({ status: 429, body: openRouter }).retryAfterMs).toBe(month);
    const negative = { error: { code: 429, metadata: { retry_after_seconds: -5 } } };
    expect(classifyFailure({ status: 429, body: negative }).retryAfterMs).toBeUndefined();
  });

  it("marks a per-day quota the message names", () => {
    const openRouter = {
      error: {
        code: 429,
        message: "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day",
        metadata: {
          headers: {
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": String(NOW + 3_600_000),
          },
        },
      },
    };
    expect(classifyFailure({ status: 429, body: openRouter }, { wallNow: NOW })).toEqual({
      kind: "rate",
      quotaWindow: "day",
      dimension: "requests",
      retryAfterMs: 3_600_000,
      perDay: true,
    });
    const openAi = { error: { type: "requests", message: "Rate limit reached for gpt-4o on requests per day (RPD)." } };
    expect(classifyFailure({ status: 429, body: openAi }).perDay).toBe(true);
    const perMinute = { error: { code: 429, message: "Rate limit exceeded: free-models-per-min." } };
    expect(classifyFailure({ status: 429, body: perMinute }).perDay).toBeUndefined();
  });

  it("reads x-should-retry", () => {
    expect(classifyFailure({ status: 500, headers: { "x-should-retry": "false" } })).toEqual({
      kind: "server",
      shouldRetry: false,
    });
  });

  it("reads OpenRouter's error.metadata: retry_after_seconds, then its copied headers", () => {
    const reset = NOW + 42_000;
    const metadataHeaders = {
      "X-RateLimit-Limit": "20",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(reset),
    };
    const body = {
      error: {
        code: 429,
        message: "Rate limit exceeded: free-models-per-min.",
        metadata: { headers: metadataHeaders },
      },
    };
    expect(classifyFailure({ body }, { wallNow: NOW })).toEqual({
      kind: "rate",
      quotaWindow: "minute",
      dimension: "requests",
      retryAfterMs: 42_000,
    });
    const upstream = {
      error: {
        code: 429,
        message: "Provider returned error",
        metadata: { retry_after_seconds: 7, headers: metadataHeaders },
      },
    };
    expect(classifyFailure({ status: 429, body: upstream }, { wallNow: NOW }).retryAfterMs).toBe(7_000);
    const asText = { error: { code: 429, metadata: { retry_after_seconds: "2.5" } } };
    expect(classifyFailure({ status: 429, body: asText }).retryAfterMs).toBe(2_500);
  });

  it("reads Gemini's google.rpc.RetryInfo, in an array body given as text", () => {
    const body = JSON.stringify([
      {
        error: {
          code: 429,
          message: "You exceeded your current quota, please check your plan and billing details.",
          status: "RESOURCE_EXHAUSTED",
          details: [
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" },
          ],
        },
      },
    ]);
    expect(classifyFailure({ status: 429, body })).toEqual({ kind: "rate", retryAfterMs: 37_000 });
    expect(classifyFailure({ body }).kind).toBe("rate");
  });

  it("falls back to the reset of the budgets the headers show exhausted", () => {
    const headers = {
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "800ms",
    };
    expect(classifyFailure({ status: 429, headers }, { provider: "openai" })).toEqual({
      kind: "rate",
      dimension: "requests",
      retryAfterMs: 800,
    });
  });

  it("ignores a body text over 64 KiB, and a non-JSON text apart from its delay", () => {
    const big = JSON.stringify({ error: { type: "insufficient_quota", pad: "x".repeat(70_000) } });
    expect(classifyFailure({ status: 429, body: big })).toEqual({ kind: "rate" });
    expect(classifyFailure({ status: 429, body: "Too many requests, try again in 3s" })).toEqual({
      kind: "rate",
      retryAfterMs: 3_000,
    });
  });
});

describe("classifyFailure: SDK errors as thrown", () => {
  it("reads an openai-node RateLimitError", () => {
    const error = OpenAI.APIError.generate(
      429,
      openAiTokens,
      undefined,
      new Headers({ "retry-after-ms": "1500", "x-should-retry": "true" }),
    );
    expect(classifyFailure(error)).toEqual({
      kind: "rate",
      quotaWindow: "minute",
      dimension: "tokens",
      retryAfterMs: 2754, // the message's hint, longer than retry-after-ms
      shouldRetry: true,
    });
  });

  it("reads an openai-node insufficient_quota error as billing", () => {
    const error = OpenAI.APIError.generate(
      429,
      { error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } },
      undefined,
      new Headers(),
    );
    expect(classifyFailure(error).kind).toBe("billing");
  });

  it("reads an Anthropic OverloadedError and RateLimitError", () => {
    const overloaded = Anthropic.APIError.generate(
      529,
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      undefined,
      new Headers({ "x-should-retry": "true" }),
    );
    expect(classifyFailure(overloaded)).toEqual({ kind: "overloaded", shouldRetry: true });
    const limited = Anthropic.APIError.generate(
      429,
      { type: "error", error: { type: "rate_limit_error", message: "..." } },
      undefined,
      new Headers({
        "retry-after": "30",
        "anthropic-ratelimit-input-tokens-limit": "80000",
        "anthropic-ratelimit-input-tokens-remaining": "0",
      }),
    );
    expect(classifyFailure(limited)).toEqual({ kind: "rate", dimension: "tokens", retryAfterMs: 30_000 });
  });

  it("reads a connection error as other", () => {
    expect(classifyFailure(new OpenAI.APIConnectionError({ message: "down" }))).toEqual({ kind: "other" });
  });
});

describe("classifyFailure: properties", () => {
  it("never throws on anything, and its numbers are finite and non-negative", () => {
    const failure = fc.oneof(
      fc.anything(),
      fc.record({
        status: fc.oneof(fc.integer({ min: -1, max: 700 }), fc.anything()),
        headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
        body: fc.oneof(fc.json(), fc.anything(), fc.string()),
      }),
    );
    fc.assert(
      fc.property(failure, (f) => {
        const c = classifyFailure(f);
        expect(["rate", "billing", "overloaded", "server", "other"]).toContain(c.kind);
        if (c.retryAfterMs !== undefined) expect(Number.isFinite(c.retryAfterMs) && c.retryAfterMs >= 0).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});
