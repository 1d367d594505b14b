import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import type { ProviderOptions, ProviderServer, SimulatedProvider } from "../../src/testing/index.js";

// The Responses API and embeddings through the real OpenAI SDK, on real time with tiny latencies.
const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: ProviderOptions): Promise<{ openai: OpenAI; provider: SimulatedProvider; url: string }> {
  const provider = createProvider(options);
  const server = await provider.listen();
  servers.push(server);
  const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "test-key", maxRetries: 0 });
  return { openai, provider, url: server.url };
}

const instructions = "Answer in a few words.";
const input = "How many tokens is this prompt, roughly?";
/** The simulator's count: the instructions as a system prompt, the input as one message. */
const inputTokens = estimatePromptTokens({ system: instructions, messages: [{ content: input }] });

describe("POST /v1/responses", () => {
  it("answers client.responses.create with an output message and its usage, charged like chat", async () => {
    const { openai, provider } = await start({ rpm: 100, tpm: 10_000, latencyMs: 2, answerTokens: () => 12 });
    const { data, response } = await openai.responses
      .create({ model: "gpt-sim", instructions, input, max_output_tokens: 64 })
      .withResponse();
    expect(data).toMatchObject({ object: "response", status: "completed", model: "gpt-sim", incomplete_details: null });
    expect(data.output_text.split(" ")).toHaveLength(12);
    expect(data.usage).toEqual({
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + 12,
    });
    expect(response.headers.get("x-ratelimit-remaining-requests")).toBe("99");
    expect(provider.stats()).toMatchObject({ tokensCharged: inputTokens + 64, tokensUsed: inputTokens + 12 });
  });

  it("counts input items' text parts and cuts the answer off at max_output_tokens", async () => {
    const { openai, provider } = await start({ tpm: 10_000, answerTokens: () => 50 });
    const items = [
      { role: "user" as const, content: [{ type: "input_text" as const, text: input }] },
      { role: "assistant" as const, content: "A dozen." },
    ];
    const data = await openai.responses.create({ model: "gpt-sim", input: items, max_output_tokens: 20 });
    expect(data).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(data.usage?.output_tokens).toBe(20);
    expect(data.usage?.input_tokens).toBe(
      estimatePromptTokens({ messages: [{ content: input }, { content: "A dozen." }] }),
    );
    expect(provider.stats().calls[0]).toMatchObject({ maxTokens: 20, actual: 20 });
  });

  it("streams the typed events in order, response.completed carrying the usage", async () => {
    const { openai } = await start({ tpm: 10_000, latencyMs: 4, answerTokens: () => 20 });
    const stream = await openai.responses.create({ model: "gpt-sim", instructions, input, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("").split(" ")).toHaveLength(20);
    const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
    expect(created.response).toMatchObject({ status: "in_progress", usage: null });
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output).toMatchObject([{ type: "message", content: [{ text: deltas.join("") }] }]);
    expect(completed.response.usage).toMatchObject({ input_tokens: inputTokens, output_tokens: 20 });
  });

  it("ends a stream cut off at max_output_tokens with response.incomplete", async () => {
    const { openai } = await start({ tpm: 10_000, answerTokens: () => 50 });
    const stream = await openai.responses.create({ model: "gpt-sim", input, max_output_tokens: 5, stream: true });
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) last = event;
    expect(last).toMatchObject({ type: "response.incomplete", response: { usage: { output_tokens: 5 } } });
  });

  it("surfaces a 429 as RateLimitError with OpenAI's error fields and retry headers", async () => {
    const { openai } = await start({ rpm: 1, tpm: 10_000 });
    await openai.responses.create({ model: "gpt-sim", input, max_output_tokens: 10 });
    const error = await openai.responses.create({ model: "gpt-sim", input, max_output_tokens: 10 }).then(
      () => expect.fail("expected a 429"),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, type: "requests", code: "rate_limit_exceeded" });
    expect(Number((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after-ms"))).toBeGreaterThan(
      0,
    );
  });

  it("gets a 400 for an input that is neither a string nor items, bad instructions or a bad cap", async () => {
    const { url, provider } = await start({});
    for (const [body, field] of [
      [{ model: "gpt-sim", input: 42 }, "input"],
      [{ model: "gpt-sim", input: "hi", instructions: ["be brief"] }, "instructions"],
      [{ model: "gpt-sim", input: "hi", max_output_tokens: 0 }, "max_output_tokens"],
    ] as const) {
      const response = await fetch(`${url}/v1/responses`, { method: "POST", body: JSON.stringify(body) });
      expect(response.status).toBe(400);
      const error = (await response.json()) as { error: { type: string; message: string } };
      expect(error.error).toMatchObject({ type: "invalid_request_error" });
      expect(error.error.message.startsWith(`${field}:`)).toBe(true);
    }
    expect(provider.stats().calls).toHaveLength(0);
  });
});

describe("POST /v1/embeddings", () => {
  const texts = ["The quick brown fox", "jumps over the lazy dog, twice"];
  const tokens = texts.reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);

  it("answers client.embeddings.create (base64 by default) with one vector per input and input-only usage", async () => {
    // The meters' clock stands still, so no refill blurs the remaining tokens.
    const clock = { now: () => 0, wallNow: () => Date.now() };
    const { openai, provider } = await start({ rpm: 100, tpm: 10_000, otpm: 1, clock });
    const { data, response } = await openai.embeddings
      .create({ model: "text-embedding-sim", input: texts, dimensions: 8 })
      .withResponse();
    expect(data.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(data.data.map((e) => e.index)).toEqual([0, 1]);
    // The SDK asked for base64 and decoded it: a unit vector of 8 float32s.
    const vector = Array.from(data.data[0]!.embedding);
    expect(vector).toHaveLength(8);
    expect(vector.reduce((sum, x) => sum + x * x, 0)).toBeCloseTo(1, 5);
    expect(response.headers.get("x-ratelimit-remaining-tokens")).toBe(String(10_000 - tokens));
    // Nothing charged for output: an OTPM of 1 never binds.
    expect(provider.stats()).toMatchObject({ tokensCharged: tokens, tokensUsed: tokens, rejected: 0 });
    expect(provider.stats().calls[0]).toMatchObject({ maxTokens: 0, actual: 0 });
  });

  it("sends numbers for encoding_format float and counts token-id inputs one a token", async () => {
    const { openai } = await start({ tpm: 10_000 });
    const floats = await openai.embeddings.create({ model: "m", input: "hello", encoding_format: "float" });
    expect(floats.data[0]?.embedding).toHaveLength(1536);
    expect(floats.usage.prompt_tokens).toBe(2);
    const ids = await openai.embeddings.create({
      model: "m",
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: "float",
    });
    expect(ids.usage.prompt_tokens).toBe(5);
    expect(ids.data).toHaveLength(2);
  });

  it("answers a 429 when the inputs do not fit TPM", async () => {
    const { openai } = await start({ tpm: 5 });
    const error = await openai.embeddings.create({ model: "m", input: texts }).then(
      () => expect.fail("expected a 429"),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status: 429, type: "tokens", code: "rate_limit_exceeded" });
  });

  it("gets a 400 for an empty input or a bad encoding_format", async () => {
    const { url } = await start({});
    for (const body of [
      { model: "m", input: [] },
      { model: "m", input: "x", encoding_format: "int8" },
      { model: "m", input: "x", dimensions: 0 },
    ]) {
      const response = await fetch(`${url}/v1/embeddings`, { method: "POST", body: JSON.stringify(body) });
      expect(response.status).toBe(400);
      await response.text();
    }
  });
});
