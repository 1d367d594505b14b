import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { SimulatedProvider } from "../../src/testing/index.js";
import type { HeaderlessDialect } from "../../src/testing/dialects.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

const CALL = { prompt: 100, maxTokens: 100, actual: 50, model: "gemini-2.5-flash" };

/** Spends one call of the provider's 1 RPM, then returns the 429 of the next. */
async function secondCallOf<R>(provider: SimulatedProvider<R>) {
  const first = await provider.call(CALL);
  expect(first.status).toBe(200);
  const second = await provider.call(CALL);
  if (second.status !== 200) return second;
  throw new Error("the second call was served");
}

const HEADERLESS: readonly HeaderlessDialect[] = ["gemini", "bedrock", "bare", "openrouter", "self-hosted"];

describe.each(HEADERLESS)("the %s dialect on success", (dialect) => {
  it("sends no rate-limit header, only the date and a request id, and an OpenAI chat completion", async () => {
    const provider = createProvider({ rpm: 10, tpm: 10_000, rpd: 100, dialect, clock: time.clock });
    const result = await provider.call(CALL);
    const id = dialect === "bedrock" ? "x-amzn-requestid" : "x-request-id";
    expect(result).toMatchObject({ status: 200, body: { object: "chat.completion" } });
    expect(result.headers).toEqual({ date: new Date(EPOCH_MS).toUTCString(), [id]: "req_00000001" });
  });
});

describe("the gemini dialect's 429", () => {
  it("is RESOURCE_EXHAUSTED with a per-minute QuotaFailure, a Help link and RetryInfo, and no header hint", async () => {
    const provider = createProvider({ rpm: 1, dialect: "gemini", clock: time.clock });
    const rejected = await secondCallOf(provider);
    expect(rejected.headers).toEqual({ date: new Date(EPOCH_MS).toUTCString(), "x-request-id": "req_00000002" });
    expect(rejected.body).toEqual({
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        message:
          "You exceeded your current quota, please check your plan and billing details. For more information on this " +
          "error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: " +
          "generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 1, model: gemini-2.5-flash\n" +
          "Please retry in 60s.",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            violations: [
              {
                quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                quotaDimensions: { location: "global", model: "gemini-2.5-flash" },
                quotaValue: "1",
              },
            ],
          },
          {
            "@type": "type.googleapis.com/google.rpc.Help",
            links: [
              {
                description: "Learn more about Gemini API quotas",
                url: "https://ai.google.dev/gemini-api/docs/rate-limits",
              },
            ],
          },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "60s" },
        ],
      },
    });
  });

  it("names the per-day quota when RPD binds, and the input-token quota when TPM does; retryDelay rounds up", async () => {
    const daily = createProvider({ rpd: 1, dialect: "gemini", clock: time.clock });
    const perDay = await secondCallOf(daily);
    expect(perDay.body.error.details[0]).toMatchObject({
      violations: [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier", quotaValue: "1" }],
    });
    expect(perDay.body.error.details[2]).toEqual({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: "86400s",
    });

    const tokens = createProvider({ tpm: 250, dialect: "gemini", clock: time.clock });
    await tokens.call({ ...CALL, actual: 100 });
    await time.at(100); // 200 used, 0.42 refilled since: the next 200 are 149.58 short, 35.9 s of refill
    const perMinute = await tokens.call(CALL);
    if (perMinute.status === 200) throw new Error("served");
    expect(perMinute.body.error.details[0]).toMatchObject({
      violations: [
        {
          quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count",
          quotaId: "GenerateContentInputTokensPerModelPerMinute-FreeTier",
          quotaValue: "250",
        },
      ],
    });
    expect(perMinute.body.error.details[2]).toMatchObject({ retryDelay: "36s" });
  });

  it("names no quota for a dimension Gemini has none for (the concurrency cap), and no RetryInfo for a call that never fits", async () => {
    const capped = createProvider({ concurrency: 1, latencyMs: 1_000, dialect: "gemini", clock: time.clock });
    const running = capped.call(CALL);
    const rejected = await capped.call(CALL);
    if (rejected.status === 200) throw new Error("served");
    expect(rejected.body.error.details.map((d) => d["@type"])).toEqual([
      "type.googleapis.com/google.rpc.Help",
      "type.googleapis.com/google.rpc.RetryInfo",
    ]);
    await time.at(1_000);
    await running;

    const small = createProvider({ tpm: 100, dialect: "gemini", clock: time.clock });
    const tooLarge = await small.call(CALL);
    if (tooLarge.status === 200) throw new Error("served");
    expect(tooLarge.body.error.details.map((d) => d["@type"])).toEqual([
      "type.googleapis.com/google.rpc.QuotaFailure",
      "type.googleapis.com/google.rpc.Help",
    ]);
    expect(tooLarge.body.error.message).not.toContain("retry");
  });
});

describe("the bedrock dialect's 429", () => {
  it("is a ThrottlingException: the header names it, the body says requests or tokens, no retry hint", async () => {
    const requests = await secondCallOf(createProvider({ rpm: 1, dialect: "bedrock", clock: time.clock }));
    expect(requests.headers).toEqual({
      date: new Date(EPOCH_MS).toUTCString(),
      "x-amzn-requestid": "req_00000002",
      "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
    });
    expect(requests.body).toEqual({ message: "Too many requests, please wait before trying again." });

    const tokens = await secondCallOf(createProvider({ tpm: 300, dialect: "bedrock", clock: time.clock }));
    expect(tokens.body).toEqual({ message: "Too many tokens, please wait before trying again." });
    const daily = await secondCallOf(createProvider({ tpd: 300, dialect: "bedrock", clock: time.clock }));
    expect(daily.body).toEqual({ message: "Too many tokens per day, please wait before trying again." });
  });
});

describe("the bare dialect's 429", () => {
  it("carries retry-after in whole seconds (rounded up) and a body that names no limit", async () => {
    const provider = createProvider({ rpm: 7, dialect: "bare", clock: time.clock });
    await Promise.all(Array.from({ length: 7 }, () => provider.call(CALL)));
    const rejected = await provider.call(CALL);
    expect(rejected).toEqual({
      status: 429,
      headers: { date: new Date(EPOCH_MS).toUTCString(), "x-request-id": "req_00000008", "retry-after": "9" },
      body: { error: { message: "Rate Limit Reached", type: "rate_limit_error", param: null, code: null } },
    });
  });

  it("answers its concurrency cap at once, as DeepSeek's documented concurrency 429s", async () => {
    const provider = createProvider({ concurrency: 2, latencyMs: 3_000, dialect: "bare", clock: time.clock });
    const running = [provider.call(CALL), provider.call(CALL)];
    const rejected = await provider.call(CALL);
    expect(rejected).toMatchObject({ status: 429, headers: { "retry-after": "3" } });
    await time.at(3_000);
    await Promise.all(running);
    expect(provider.stats().rejectedBy.concurrency).toBe(1);
  });
});

describe("the openrouter dialect's 429", () => {
  it("carries the limit's X-RateLimit-* in error.metadata.headers only, the reset in epoch milliseconds", async () => {
    const provider = createProvider({ rpm: 16, dialect: "openrouter", window: "fixed", clock: time.clock });
    await time.at(20_000);
    await Promise.all(Array.from({ length: 16 }, () => provider.call(CALL)));
    const rejected = await provider.call(CALL);
    expect(rejected.headers).toEqual({
      date: new Date(EPOCH_MS + 20_000).toUTCString(),
      "x-request-id": "req_00000017",
    });
    // The fixed minute that opened at monotonic 0 closes 40 s later.
    expect(rejected.body).toEqual({
      error: {
        message: "Rate limit exceeded: free-models-per-min. ",
        code: 429,
        metadata: {
          headers: {
            "X-RateLimit-Limit": "16",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": String(EPOCH_MS + 60_000),
          },
          provider_name: null,
        },
      },
      user_id: "user_simulated",
    });
  });

  it("names the per-day limit when RPD binds", async () => {
    const rejected = await secondCallOf(createProvider({ rpd: 1, dialect: "openrouter", clock: time.clock }));
    expect(rejected.body.error.message).toBe("Rate limit exceeded: free-models-per-day. ");
  });
});

describe("the self-hosted dialect", () => {
  it("answers beyond its capacity in flight with TGI's overloaded 429, without a retry hint", async () => {
    const provider = createProvider({ concurrency: 2, latencyMs: 1_000, dialect: "self-hosted", clock: time.clock });
    const running = [provider.call(CALL), provider.call(CALL)];
    const rejected = await provider.call(CALL);
    expect(rejected).toEqual({
      status: 429,
      headers: { date: new Date(EPOCH_MS).toUTCString(), "x-request-id": "req_00000003" },
      body: { error: "Model is overloaded", error_type: "overloaded" },
    });
    await time.at(1_000);
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200]);
    const next = provider.call(CALL);
    await time.at(2_000);
    expect((await next).status).toBe(200);
  });

  it("tells latencyMs the calls in flight, this one included, so latency can grow with the load", async () => {
    // 1 s at full speed up to 2 calls in flight; beyond, the server's throughput is shared.
    const provider = createProvider({
      concurrency: 8,
      dialect: "self-hosted",
      latencyMs: (c) => 1_000 * Math.max(1, c.inFlight / 2),
      clock: time.clock,
    });
    const done: number[] = [];
    const calls = Array.from({ length: 4 }, () => provider.call(CALL).then(() => done.push(time.clock.now())));
    await time.at(500);
    // One more while 4 are in flight: 5 x 0.5 s.
    const late = provider.call(CALL).then(() => done.push(time.clock.now()));
    await time.at(3_000);
    await Promise.all([...calls, late]);
    // 1 s, 1 s, 1.5 s, 2 s from 0; 2.5 s from 500.
    expect(done).toEqual([1_000, 1_000, 1_500, 2_000, 3_000]);
    expect(provider.stats().calls.map((c) => c.completedAt)).toEqual([1_000, 1_000, 1_500, 2_000, 3_000]);
  });
});

describe("a headerless dialect over HTTP", () => {
  it("sends its own 429 body and headers on the OpenAI route", async () => {
    const provider = createProvider({ rpm: 1, dialect: "bedrock", clock: time.clock });
    const server = await provider.listen();
    try {
      const post = () =>
        fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
        });
      expect((await post()).status).toBe(200);
      const rejected = await post();
      expect(rejected.status).toBe(429);
      expect(rejected.headers.get("x-amzn-errortype")).toMatch(/^ThrottlingException:/);
      expect(await rejected.json()).toEqual({ message: "Too many requests, please wait before trying again." });
    } finally {
      await server.close();
    }
  });
});
