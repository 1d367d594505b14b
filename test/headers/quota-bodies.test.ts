import { describe, expect, it } from "vitest";
import { classifyFailure } from "../../src/headers/index.js";

/** Gemini's 429 body (docs/providers.md): a `QuotaFailure` naming `violations`, a `Help`, a `RetryInfo`. */
function gemini(violations: unknown[], retryDelay = "38s"): unknown {
  return {
    error: {
      code: 429,
      message:
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 15, model: gemini-2.5-flash\nPlease retry in 37.2s.",
      status: "RESOURCE_EXHAUSTED",
      details: [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations },
        {
          "@type": "type.googleapis.com/google.rpc.Help",
          links: [
            {
              description: "Learn more about Gemini API quotas",
              url: "https://ai.google.dev/gemini-api/docs/rate-limits",
            },
          ],
        },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
      ],
    },
  };
}

const perMinute = {
  quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
  quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
  quotaDimensions: { location: "global", model: "gemini-2.5-flash" },
  quotaValue: "15",
};
const perDay = {
  quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
  quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
  quotaDimensions: { location: "global", model: "gemini-2.5-flash" },
  quotaValue: "250",
};
const inputTokens = {
  quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count",
  quotaId: "GenerateContentInputTokensPerModelPerMinute-FreeTier",
  quotaDimensions: { location: "global", model: "gemini-2.0-flash" },
  quotaValue: "250000",
};

describe("classifyFailure: what 429 bodies say of their quota", () => {
  it("Gemini per-minute requests: a limit of 15 a minute, not per-day", () => {
    expect(classifyFailure({ status: 429, body: gemini([perMinute]) })).toEqual({
      kind: "rate",
      dimension: "requests",
      quotaWindow: "minute",
      quotaValue: 15,
      retryAfterMs: 38_000,
    });
  });

  it("Gemini per-minute input tokens, as text", () => {
    expect(classifyFailure({ status: 429, body: JSON.stringify(gemini([inputTokens], "26s")) })).toEqual({
      kind: "rate",
      dimension: "tokens",
      quotaWindow: "minute",
      quotaValue: 250_000,
      retryAfterMs: 37_200, // the message's "retry in 37.2s" is the longer hint
    });
  });

  it("Gemini per-day: per-day, its day turning at Pacific midnight, even listed after a per-minute one", () => {
    expect(classifyFailure({ status: 429, body: gemini([perMinute, perDay], "47s") })).toEqual({
      kind: "rate",
      dimension: "requests",
      perDay: true,
      quotaWindow: "day",
      quotaValue: 250,
      dayTimeZone: "America/Los_Angeles",
      retryAfterMs: 47_000,
    });
  });

  it("an older Gemini body without quotaValue, and hostile values, state no value", () => {
    const { quotaValue: _, ...noValue } = perMinute;
    for (const violation of [noValue, { ...perMinute, quotaValue: "0" }, { ...perMinute, quotaValue: "1.5" }]) {
      expect(classifyFailure({ status: 429, body: gemini([violation]) }).quotaValue).toBeUndefined();
    }
    for (const quotaValue of ["1e400", "-3", "NaN", 1e300, "9".repeat(300), null, {}]) {
      const failure = classifyFailure({ status: 429, body: gemini([{ ...perMinute, quotaValue }]) });
      expect(failure.quotaValue).toBeUndefined();
      expect(failure.quotaWindow).toBe("minute");
    }
    const many = Array.from({ length: 10_000 }, () => perMinute);
    expect(classifyFailure({ status: 429, body: gemini([...many, perDay]) }).perDay).toBeUndefined(); // past 16
  });

  it("Vertex AI names its quota in the message", () => {
    const body = {
      error: {
        code: 429,
        message:
          "Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-pro. Please submit a quota increase request.",
        status: "RESOURCE_EXHAUSTED",
      },
    };
    expect(classifyFailure({ status: 429, body })).toEqual({
      kind: "rate",
      dimension: "requests",
      quotaWindow: "minute",
    });
    const daily = JSON.parse(JSON.stringify(body).replace("per_minute", "per_day")) as unknown;
    expect(classifyFailure({ status: 429, body: daily })).toEqual({
      kind: "rate",
      dimension: "requests",
      quotaWindow: "day",
      perDay: true,
      dayTimeZone: "America/Los_Angeles",
    });
  });

  const bedrockHeaders = {
    "x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
    "x-amzn-RequestId": "6b8c7a55-1b7e-4b7e-9d3a-1f2e3d4c5b6a",
  };

  it("Bedrock: too many tokens against too many requests, per minute or per day", () => {
    const tokens = { message: "Too many tokens, please wait before trying again." };
    const requests = { message: "Too many requests, please wait before trying again." };
    const daily = { message: "Too many tokens per day, please wait before trying again." };
    expect(classifyFailure({ status: 429, headers: bedrockHeaders, body: tokens })).toEqual({
      kind: "rate",
      dimension: "tokens",
    });
    expect(classifyFailure({ status: 429, headers: bedrockHeaders, body: JSON.stringify(requests) })).toEqual({
      kind: "rate",
      dimension: "requests",
    });
    expect(classifyFailure({ status: 429, headers: bedrockHeaders, body: daily })).toEqual({
      kind: "rate",
      dimension: "tokens",
      quotaWindow: "day",
      perDay: true,
    });
    // Without its header or its wording, a gateway's "Too Many Requests" names no budget.
    expect(classifyFailure({ status: 429, body: "Too Many Requests" })).toEqual({ kind: "rate" });
  });

  it("Bedrock through the AWS SDK: a ThrottlingException with $metadata", () => {
    const error = Object.assign(new Error("Too many tokens, please wait before trying again."), {
      name: "ThrottlingException",
      $fault: "client",
      $metadata: { httpStatusCode: 429, requestId: "6b8c7a55", attempts: 1 },
    });
    expect(classifyFailure(error)).toEqual({ kind: "rate", dimension: "tokens" });
    const noStatus = Object.assign(new Error("Too many requests, please wait before trying again."), {
      name: "ThrottlingException",
    });
    expect(classifyFailure(noStatus)).toEqual({ kind: "rate", dimension: "requests" });
  });

  it("DeepSeek's concurrency 429: the concurrency dimension and its limit", () => {
    const body = {
      error: {
        message:
          "Your current concurrency is 40, which exceeds your concurrency limit of 39 based on your remaining balance. Please top up your balance to restore your concurrency.",
        type: "rate_limit_error",
        param: null,
        code: null,
      },
    };
    expect(classifyFailure({ status: 429, headers: { "retry-after": "1" }, body })).toEqual({
      kind: "rate",
      dimension: "concurrency",
      quotaValue: 39,
      retryAfterMs: 1000,
    });
    // DeepSeek's plain 429 names nothing.
    const plain = { error: { message: "Rate Limit Reached", type: "rate_limit_error", param: null, code: null } };
    expect(classifyFailure({ status: 429, body: plain })).toEqual({ kind: "rate" });
  });

  it("xAI's credits or spending limit is billing, though a 429", () => {
    const message =
      "Your team 16f2151a-40f4-4a80-8ad0-cae00c27e8dd has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit.";
    expect(
      classifyFailure({ status: 429, body: { code: "Some resource has been exhausted", error: message } }),
    ).toEqual({
      kind: "billing",
    });
    expect(classifyFailure({ status: 429, body: JSON.stringify(message) })).toEqual({ kind: "billing" });
    expect(classifyFailure({ status: 429, body: message })).toEqual({ kind: "billing" });
  });

  it("Anthropic's 'Extra usage is required' is billing, though a rate_limit_error 429", () => {
    const body = {
      type: "error",
      error: { type: "rate_limit_error", message: "Extra usage is required for long context requests." },
      request_id: "req_011CaSpTPGmSLcjGMmHFfkGd",
    };
    expect(classifyFailure({ status: 429, headers: { "retry-after": "30" }, body })).toEqual({
      kind: "billing",
      retryAfterMs: 30_000,
    });
    const out = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "You're out of extra usage. Add more at claude.ai/settings/usage and keep going.",
      },
    };
    expect(classifyFailure({ status: 400, body: out }).kind).toBe("billing");
  });
});
