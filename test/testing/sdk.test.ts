import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import type { ProviderOptions, ProviderServer } from "../../src/testing/index.js";

// These run on real time with tiny latencies: the SDKs talk to a real socket.
const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: ProviderOptions): Promise<{ openai: OpenAI; anthropic: Anthropic }> {
  const server = await createProvider(options).listen();
  servers.push(server);
  return {
    openai: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "test-key", maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
  };
}

/** Catches what `promise` rejects with; fails the test if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to be rejected"),
    (error: unknown) => error,
  );
}

const question = [{ role: "user" as const, content: "How many tokens is this prompt, roughly?" }];
const questionTokens = estimatePromptTokens({ messages: question });

describe("the OpenAI SDK against the simulator", () => {
  it("parses a non-streaming chat completion and exposes the rate-limit headers", async () => {
    const { openai } = await start({ rpm: 100, tpm: 10_000, latencyMs: 2, answerTokens: () => 12 });
    const { data, response } = await openai.chat.completions
      .create({ model: "gpt-sim", messages: question, max_tokens: 64 })
      .withResponse();
    expect(data.model).toBe("gpt-sim");
    expect(data.choices[0]?.message.content?.split(" ")).toHaveLength(12);
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.usage).toEqual({
      prompt_tokens: questionTokens,
      completion_tokens: 12,
      total_tokens: questionTokens + 12,
    });
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("100");
    expect(response.headers.get("x-ratelimit-remaining-requests")).toBe("99");
    expect(Number(response.headers.get("x-ratelimit-remaining-tokens"))).toBeGreaterThanOrEqual(
      10_000 - questionTokens - 12,
    );
    expect(response.headers.get("x-request-id")).toBe("req_00000001");
  });

  it("streams chunks, ending with a usage chunk when stream_options.include_usage is set", async () => {
    const { openai } = await start({ tpm: 10_000, latencyMs: 5, answerTokens: () => 20 });
    const stream = await openai.chat.completions.create({
      model: "gpt-sim",
      messages: question,
      max_completion_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text.split(" ")).toHaveLength(20);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: questionTokens,
      completion_tokens: 20,
      total_tokens: questionTokens + 20,
    });
  });

  it("streams without a usage chunk when include_usage is not set, and honours max_completion_tokens", async () => {
    const { openai } = await start({ latencyMs: 1, answerTokens: () => 1_000 });
    const stream = await openai.chat.completions.create({
      model: "gpt-sim",
      messages: question,
      max_completion_tokens: 7,
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("length");
    expect(
      chunks
        .map((c) => c.choices[0]?.delta.content ?? "")
        .join("")
        .split(" "),
    ).toHaveLength(7);
  });

  it("surfaces a 429 as RateLimitError with status, headers and OpenAI's error fields", async () => {
    const { openai } = await start({ rpm: 1, tpm: 10_000, latencyMs: 0 });
    await openai.chat.completions.create({ model: "gpt-sim", messages: question, max_tokens: 10 });
    const error = await rejectionOf(
      openai.chat.completions.create({ model: "gpt-sim", messages: question, max_tokens: 10 }),
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.type).toBe("requests");
    expect(rateLimit.code).toBe("rate_limit_exceeded");
    expect(rateLimit.param).toBeNull();
    expect(rateLimit.message).toMatch(
      /^429 Rate limit reached on requests per min \(RPM\): Limit 1, Used 1, Requested 1\. Please try again in \d+(\.\d+)?s\.$/,
    );
    expect(rateLimit.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(rateLimit.headers.get("x-ratelimit-limit-tokens")).toBe("10000");
    const retryAfterMs = Number(rateLimit.headers.get("retry-after-ms"));
    expect(retryAfterMs).toBeGreaterThan(59_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(rateLimit.headers.get("retry-after")).toBe("60");
  });

  it("gets a 400 BadRequestError for a malformed request", async () => {
    const { openai } = await start({});
    const error = await rejectionOf(
      openai.chat.completions.create({ model: "gpt-sim", messages: question, max_tokens: -3 }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).type).toBe("invalid_request_error");
  });

  it("gets a 500 InternalServerError when the answerTokens hook throws", async () => {
    const { openai } = await start({
      answerTokens: () => {
        throw new Error("hook failed");
      },
    });
    const error = await rejectionOf(
      openai.chat.completions.create({ model: "gpt-sim", messages: question, max_tokens: 5 }),
    );
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toContain("hook failed");
  });
});

describe("the Anthropic SDK against the simulator", () => {
  it("parses a non-streaming message and exposes the rate-limit headers", async () => {
    const { anthropic } = await start({
      rpm: 50,
      itpm: 80_000,
      otpm: 16_000,
      dialect: "anthropic",
      latencyMs: 2,
      answerTokens: () => 9,
    });
    const { data, response } = await anthropic.messages
      .create({ model: "claude-sim", max_tokens: 256, system: "Be brief.", messages: question })
      .withResponse();
    expect(data.type).toBe("message");
    expect(data.stop_reason).toBe("end_turn");
    expect(data.content[0]?.type === "text" && data.content[0].text.split(" ")).toHaveLength(9);
    expect(data.usage).toMatchObject({ input_tokens: questionTokens + 3 + 3, output_tokens: 9 });
    expect(response.headers.get("anthropic-ratelimit-requests-remaining")).toBe("49");
    expect(response.headers.get("anthropic-ratelimit-input-tokens-remaining")).toBe("80000");
    expect(response.headers.get("anthropic-ratelimit-requests-reset")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(response.headers.get("request-id")).toBe("req_00000001");
  });

  it("accumulates a streamed message whose usage arrives in message_delta", async () => {
    const { anthropic } = await start({ dialect: "anthropic", latencyMs: 5, answerTokens: () => 30 });
    const stream = anthropic.messages.stream({ model: "claude-sim", max_tokens: 256, messages: question });
    const eventTypes: string[] = [];
    stream.on("streamEvent", (event) => eventTypes.push(event.type));
    const message = await stream.finalMessage();
    expect(message.usage).toMatchObject({ input_tokens: questionTokens, output_tokens: 30 });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content[0]?.type === "text" && message.content[0].text.split(" ")).toHaveLength(30);
    expect(eventTypes[0]).toBe("message_start");
    expect(eventTypes[1]).toBe("content_block_start");
    expect(eventTypes.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(eventTypes.filter((t) => t === "content_block_delta").length).toBeGreaterThan(1);
  });

  it("reports max_tokens as the stop reason when the answer is cut off", async () => {
    const { anthropic } = await start({ dialect: "anthropic", answerTokens: () => 500 });
    const message = await anthropic.messages.create({ model: "claude-sim", max_tokens: 16, messages: question });
    expect(message).toMatchObject({ stop_reason: "max_tokens", usage: { output_tokens: 16 } });
  });

  it("surfaces a 429 as RateLimitError with status, headers and Anthropic's error body", async () => {
    const { anthropic } = await start({ rpm: 1, dialect: "anthropic" });
    await anthropic.messages.create({ model: "claude-sim", max_tokens: 16, messages: question });
    const error = await rejectionOf(
      anthropic.messages.create({ model: "claude-sim", max_tokens: 16, messages: question }),
    );
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rateLimit = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.type).toBe("rate_limit_error");
    expect(rateLimit.error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(rateLimit.headers.get("anthropic-ratelimit-requests-remaining")).toBe("0");
    expect(rateLimit.headers.get("retry-after")).toBe("60");
    expect(rateLimit.requestID).toBe("req_00000002");
  });

  it("gets a 400 BadRequestError when max_tokens is missing", async () => {
    const { anthropic } = await start({ dialect: "anthropic" });
    const body = { model: "claude-sim", messages: question } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const error = await rejectionOf(anthropic.messages.create(body));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).type).toBe("invalid_request_error");
  });
});
