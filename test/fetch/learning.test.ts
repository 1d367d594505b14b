import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { Limiter, estimateRequest } from "../../src/index.js";
import type { Estimate, EstimateCorrectedEvent } from "../../src/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import { anthropicMessages, openAIChat } from "../ai/helpers.js";
import { anthropicClient, openAIClient, useSimulator } from "../integration/helpers.js";
import { eventually } from "./recording.js";

/** About 1,400 characters of English prose, as the issue measured. */
const PROSE =
  "Rate limits protect a shared service from any one client drawing more than its share. A provider meters each " +
  "key on several budgets at once: requests per minute, tokens per minute, sometimes tokens per day. Each budget " +
  "behaves like a bucket that refills at a steady rate, and a request is admitted only when every bucket holds " +
  "enough for it. When a bucket runs dry, the provider answers with a 429 and a hint of how long to wait, and a " +
  "client that retries at once only makes matters worse. A careful client therefore keeps its own account of what " +
  "it has spent, waits in a queue when a bucket is low, and settles each call on the usage the provider reports, " +
  "so that the unused part of a reservation comes back for the next caller. The estimate matters most at the start " +
  "of a burst, before any answer has come back: a count that falls short of the provider's lets the client send " +
  "more than the bucket holds, and the provider refuses the excess. A count that errs high only makes the first " +
  "callers wait a little longer, and the settle gives back what was reserved in excess as soon as each call ends. " +
  "Over time the client can compare its own counts with the provider's and correct them, call by call, so that its " +
  "estimates track what the provider actually charges rather than a rule of thumb fixed in advance.";

const messages = [{ role: "user" as const, content: PROSE }];
const body = { model: "gpt-sim", messages, max_tokens: 100 };

/** The estimates a limiter admitted on, in order. */
function admissions(limiter: Limiter): Estimate[] {
  const seen: Estimate[] = [];
  limiter.on("admitted", ({ estimate }) => seen.push(estimate));
  return seen;
}

const inputOf = (estimate: Estimate | undefined): number =>
  typeof estimate === "object" ? estimate.input : Number.NaN;

describe("limiter.fetch() learns how the provider counts its prompts", () => {
  const sim = useSimulator({ tpm: 1_000_000, latencyMs: 2, answerTokens: () => 10 });
  const anthropicSim = useSimulator({
    rpm: 1_000,
    itpm: 1_000_000,
    otpm: 1_000_000,
    dialect: "anthropic",
    latencyMs: 2,
    answerTokens: () => 10,
  });

  it("OpenAI: corrects the next call's prompt by the provider's count of the first, shown in snapshot() and an event", async () => {
    const limiter = new Limiter({ tpm: 1_000_000, provider: "openai", initial: "full" });
    const seen = admissions(limiter);
    const events: EstimateCorrectedEvent[] = [];
    limiter.on("corrected", (event) => events.push(event));
    const openai = openAIClient(sim().server, { fetch: limiter.fetch() });
    const raw = estimateRequest(body, { endpoint: "chat.completions" }).input;
    const counted = estimatePromptTokens({ messages });

    const first = await openai.chat.completions.create(body);
    await eventually(() => limiter.snapshot().inFlight === 0);
    await openai.chat.completions.create(body);

    expect(first.usage?.prompt_tokens).toBe(counted);
    const ratio = counted / raw;
    expect(inputOf(seen[0])).toBe(raw);
    expect(inputOf(seen[1])).toBe(Math.ceil(raw * Math.max(1, ratio)));
    expect(inputOf(seen[1])).toBeGreaterThanOrEqual(counted);
    expect(limiter.snapshot().estimates?.["chat.completions gpt-sim"]).toMatchObject({
      kind: "chat.completions",
      model: "gpt-sim",
      samples: 2,
    });
    if (ratio > 1) expect(events[0]).toMatchObject({ kind: "chat.completions", ratio, previous: 1, samples: 1 });
  });

  it("learns nothing where the estimate is the caller's (an `estimate` or a `tokenizer`)", async () => {
    const limiter = new Limiter({ tpm: 1_000_000, provider: "openai", initial: "full" });
    const own = openAIClient(sim().server, { fetch: limiter.fetch({ estimate: () => ({ input: 20, output: 100 }) }) });
    const counted = openAIClient(sim().server, { fetch: limiter.fetch({ tokenizer: (text) => text.length }) });
    await own.chat.completions.create(body);
    await counted.chat.completions.create(body);
    await eventually(() => limiter.snapshot().inFlight === 0);
    expect(limiter.snapshot().estimates).toBeUndefined();
  });

  it("Anthropic: learns from input plus cache reads and writes, and settles ITPM without the reads", async () => {
    const limiter = new Limiter({ rpm: 1_000, itpm: 1_000_000, otpm: 1_000_000, provider: "anthropic" });
    const settled: unknown[] = [];
    limiter.on("settled", ({ usage }) => settled.push(usage));
    const usage = { input_tokens: 50, cache_read_input_tokens: 400, cache_creation_input_tokens: 20, output_tokens: 7 };
    const upstream: typeof fetch = async () =>
      Response.json(
        { id: "msg_1", type: "message", role: "assistant", model: "claude-sim", content: [], usage },
        { headers: { "content-type": "application/json" } },
      );
    const anthropic = anthropicClient(anthropicSim().server, { fetch: limiter.fetch({ fetch: upstream }) });
    const request = { model: "claude-sim", max_tokens: 100, messages };
    const raw = estimateRequest(request, { endpoint: "messages" }).input;

    await anthropic.messages.create(request);
    await eventually(() => limiter.snapshot().inFlight === 0);

    // The cache writes are part of the input (priced apart where `prices` say so).
    expect(settled).toEqual([{ input: 70, output: 7, cacheWrite: 20 }]);
    expect(limiter.snapshot().estimates?.["messages claude-sim"]?.ratio).toBe(Math.min(4, Math.max(0.5, 470 / raw)));
  });

  it("Anthropic against the simulator: a stream's usage teaches the ratio, below 1 too (Anthropic charges its count)", async () => {
    const limiter = new Limiter({ rpm: 1_000, itpm: 1_000_000, otpm: 1_000_000, provider: "anthropic" });
    const seen = admissions(limiter);
    const anthropic = anthropicClient(anthropicSim().server, { fetch: limiter.fetch() });
    const request = { model: "claude-sim", max_tokens: 100, messages };
    const raw = estimateRequest(request, { endpoint: "messages" }).input;
    const counted = estimatePromptTokens({ messages });

    const stream = await anthropic.messages.create({ ...request, stream: true });
    for await (const _event of stream);
    await eventually(() => limiter.snapshot().inFlight === 0);
    await anthropic.messages.create(request);

    expect(inputOf(seen[1])).toBe(Math.ceil(raw * (counted / raw)));
    expect(limiter.snapshot().estimates?.["messages claude-sim"]).toMatchObject({ ratio: counted / raw, samples: 2 });
  });
});

describe("limiter.estimate(): the manual form's estimate, corrected and learned from", () => {
  it("corrects by what the settles of its own estimates taught, queued ones included", async () => {
    const limiter = new Limiter({ rpm: 1, itpm: 1_000_000, otpm: 1_000_000, provider: "anthropic" });
    const request = { model: "claude-x", system: "Be brief.", max_tokens: 100, messages };
    const raw = estimateRequest(request).input;
    const first = limiter.estimate(request);
    expect(first).toEqual({ input: raw, output: 100 });

    await limiter.run(first, () => ({ value: 1, used: { input: Math.round(raw * 1.5), output: 3 } }));
    const second = limiter.estimate(request);
    expect(second.input).toBe(Math.ceil(raw * (Math.round(raw * 1.5) / raw)));
    // rpm 1: this one waits, on a copy of the estimate; its settle still teaches.
    limiter.setLimits({ rpm: 60_000 });
    const reservation = await limiter.acquire(limiter.estimate(request));
    reservation.settle({ input: raw * 2, output: 1 });
    reservation.release();
    expect(limiter.snapshot().estimates?.["messages claude-x"]).toMatchObject({ ratio: 2, samples: 2 });
  });

  it("learns from a queued call's settle", async () => {
    const limiter = new Limiter({ rpm: 1, itpm: 1_000_000, otpm: 1_000_000, provider: "anthropic", initial: "full" });
    const request = { model: "claude-q", system: "Be brief.", max_tokens: 100, messages };
    const raw = estimateRequest(request).input;
    await limiter.run(limiter.estimate(request), () => ({ value: 1 }));
    const queued = limiter.run(limiter.estimate(request), () => ({ value: 1, used: { input: raw * 3, output: 1 } }));
    expect(limiter.snapshot().queued).toBe(1);
    limiter.setLimits({ rpm: 60_000 });
    await queued;
    expect(limiter.snapshot().estimates?.["messages claude-q"]?.ratio).toBe(3);
  });

  it("with a tokenizer, neither corrects nor learns; a number settled teaches nothing", async () => {
    const limiter = new Limiter({ tpm: 1_000_000 });
    const counted = limiter.estimate(body, { tokenizer: (text) => text.length });
    expect(counted).toEqual(estimateRequest(body, { tokenizer: (text) => text.length }));
    await limiter.run(counted, () => ({ value: 1, used: { input: 1e6, output: 1 } }));
    await limiter.run(limiter.estimate(body), () => ({ value: 1, used: 5_000 }));
    expect(limiter.snapshot().estimates).toBeUndefined();
    expect(() => limiter.estimate("not a body")).toThrow(TypeError);
  });
});

describe("the AI SDK middleware learns how the provider counts its prompts", () => {
  const sim = useSimulator({ tpm: 1_000_000, answerTokens: () => 10 });
  const anthropicSim = useSimulator({
    rpm: 1_000,
    itpm: 1_000_000,
    otpm: 1_000_000,
    dialect: "anthropic",
    answerTokens: () => 10,
  });

  it("OpenAI chat: the second call's prompt is corrected by the first's count, per provider and model", async () => {
    const limiter = new Limiter({ tpm: 1_000_000, provider: "openai" });
    const seen = admissions(limiter);
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter));
    await generateText({ model, prompt: PROSE, maxOutputTokens: 100, maxRetries: 0 });
    await generateText({ model, prompt: PROSE, maxOutputTokens: 100, maxRetries: 0 });
    const [call] = sim().provider.stats().calls.slice(-2);
    const raw = inputOf(seen[0]);
    expect(inputOf(seen[1])).toBe(Math.ceil(raw * Math.max(1, call!.prompt / raw)));
    expect(inputOf(seen[1])).toBeGreaterThanOrEqual(call!.prompt);
    expect(limiter.snapshot().estimates?.["openai.chat gpt-sim"]).toMatchObject({ samples: 2 });
  });

  it("Anthropic, streamed: learns from the finish part's input total", async () => {
    const { streamText } = await import("ai");
    const limiter = new Limiter({ rpm: 1_000, itpm: 1_000_000, otpm: 1_000_000, provider: "anthropic" });
    const model = anthropicMessages(anthropicSim().server, rateLimitMiddleware(limiter));
    const result = streamText({ model, prompt: PROSE, maxOutputTokens: 100, maxRetries: 0 });
    await result.consumeStream();
    const usage = await result.usage;
    await eventually(() => limiter.snapshot().inFlight === 0);
    const reading = limiter.snapshot().estimates?.["anthropic.messages claude-sim"];
    expect(reading?.samples).toBe(1);
    expect(usage.inputTokens).toBeGreaterThan(0);
  });
});
