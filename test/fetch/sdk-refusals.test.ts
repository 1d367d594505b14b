import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { APICallError, generateText, RetryError } from "ai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { Limiter, WaitTimeoutError } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import type { Admitter } from "../../src/fetch/index.js";
import { anthropicClient, openAIClient, useSimulator } from "../integration/helpers.js";
import { eventually } from "./recording.js";

/** A limited fetch that counts its calls (an SDK's attempts) and what reached the provider. */
function counted(admitter: Admitter): { fetch: typeof globalThis.fetch; attempts: () => number; sent: () => number } {
  let attempts = 0;
  let sent = 0;
  const limited = limitedFetch(() => admitter, {
    fetch: (input, init) => {
      sent += 1;
      return globalThis.fetch(input, init);
    },
  });
  return {
    fetch: (input, init) => {
      attempts += 1;
      return limited(input, init);
    },
    attempts: () => attempts,
    sent: () => sent,
  };
}

/** A fetch through a limiter whose budgets can never hold a call of 2,000 output tokens. */
const tooSmall = (limits: { tpm: number } | { itpm: number; otpm: number }) =>
  counted(new Limiter({ ...limits, initial: "full" }));

/** A fetch through a limiter whose one slot is held: a call queues until the caller aborts it. */
function queuing() {
  const limiter = new Limiter({ tpm: 60_000, concurrency: 1, initial: "full" });
  limiter.tryAcquire({ input: 1, output: 1 });
  return { limiter, ...counted(limiter) };
}

/** A fetch whose every admission times out, the budget having room again in `inMs` (1 ms by default). */
const timingOut = (inMs = 1) =>
  counted({
    acquire: () =>
      Promise.reject(new WaitTimeoutError("tpm", inMs, 0, { windowMs: 60_000, availableAt: Date.now() + inMs })),
  });

const THREE_HOURS_MS = 3 * 3_600_000;

const TOO_LARGE =
  /^413 llm-limiter: Request costs \d+ on "(tpm|otpm)" but its capacity is 1000; it can never be admitted$/;
/** The simulators every client here calls: an OpenAI-style key and an Anthropic-style one, answering at once. */
const OPENAI_QUOTA = { tpm: 60_000, latencyMs: 2, answerTokens: () => 12 } satisfies Parameters<typeof useSimulator>[0];
const ANTHROPIC_QUOTA = {
  itpm: 40_000,
  otpm: 8_000,
  dialect: "anthropic",
  latencyMs: 2,
  answerTokens: () => 12,
} satisfies Parameters<typeof useSimulator>[0];

const messages = [{ role: "user" as const, content: "Say twelve words." }];

describe("refusals through limiter.fetch() on the OpenAI SDK (maxRetries 2)", () => {
  const sim = useSimulator(OPENAI_QUOTA);

  it("a call that can never fit: an APIError 413 with the budget and the cost, after one attempt", async () => {
    const { fetch, attempts, sent } = tooSmall({ tpm: 1_000 });
    const openai = openAIClient(sim().server, { fetch, maxRetries: 2 });
    const error = await openai.chat.completions
      .create({ model: "gpt-sim", messages, max_tokens: 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(error).toMatchObject({ status: 413, code: "REQUEST_TOO_LARGE", type: "llm_limiter_error" });
    expect((error as Error).message).toMatch(TOO_LARGE);
    expect([attempts(), sent()]).toEqual([1, 0]);
  });

  it("a closed limiter: a BadRequestError 400, after one attempt", async () => {
    const limiter = new Limiter({ tpm: 60_000, initial: "full" });
    await limiter.close();
    const { fetch, attempts } = counted(limiter);
    const openai = openAIClient(sim().server, { fetch, maxRetries: 2 });
    const error = await openai.chat.completions
      .create({ model: "gpt-sim", messages, max_tokens: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      code: "LIMITER_CLOSED",
      message: "400 llm-limiter: The limiter is closed",
    });
    expect(attempts()).toBe(1);
  });

  it("a wait past maxWaitMs: a RateLimitError 429, which the SDK retries on its hint (3 attempts)", async () => {
    const { fetch, attempts, sent } = timingOut();
    const openai = openAIClient(sim().server, { fetch, maxRetries: 2 });
    const error = await openai.chat.completions
      .create({ model: "gpt-sim", messages, max_tokens: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: "WAIT_TIMEOUT" });
    expect((error as Error).message).toMatch(/^429 llm-limiter: Admission on "tpm" needs 1 ms/);
    expect([attempts(), sent()]).toEqual([3, 0]);
  });
});

describe("a wait of hours through limiter.fetch() (maxRetries 2): a 429 the OpenAI SDK and LangChain do not retry", () => {
  const sim = useSimulator(OPENAI_QUOTA);

  it("OpenAI SDK: a RateLimitError after one attempt (x-should-retry: false)", async () => {
    const { fetch, attempts } = timingOut(THREE_HOURS_MS);
    const openai = openAIClient(sim().server, { fetch, maxRetries: 2 });
    const error = await openai.chat.completions
      .create({ model: "gpt-sim", messages, max_tokens: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("10800");
    expect(attempts()).toBe(1);
  });

  it("ChatOpenAI: an error after one attempt (LangChain stops at a retry-after over 60 s)", async () => {
    const { fetch, attempts } = timingOut(THREE_HOURS_MS);
    const model = new ChatOpenAI({
      model: "gpt-sim",
      apiKey: "test-key",
      maxTokens: 20,
      maxRetries: 2,
      configuration: { baseURL: `${sim().server.url}/v1`, fetch },
    });
    const error = await model.invoke("Say twelve words.").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/llm-limiter: Admission on "tpm" needs 10800000 ms/);
    expect(attempts()).toBe(1);
  });
});

describe("refusals through limiter.fetch() on the Anthropic SDK (maxRetries 2)", () => {
  const sim = useSimulator(ANTHROPIC_QUOTA);

  it("a call that can never fit: a ContentTooLargeError 413 with the budget and the cost, after one attempt", async () => {
    const { fetch, attempts, sent } = tooSmall({ itpm: 40_000, otpm: 1_000 });
    const anthropic = anthropicClient(sim().server, { fetch, maxRetries: 2 });
    const error = await anthropic.messages
      .create({ model: "claude-sim", messages, max_tokens: 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toBeInstanceOf(Anthropic.ContentTooLargeError);
    expect(error).toMatchObject({ status: 413, type: "llm_limiter_error", errorCode: "REQUEST_TOO_LARGE" });
    expect((error as Error).message).toMatch(TOO_LARGE);
    expect((error as { apiMessage: string }).apiMessage).toMatch(/^llm-limiter: Request costs/);
    expect([attempts(), sent()]).toEqual([1, 0]);
  });

  it("a wait past maxWaitMs: a RateLimitError 429, which the SDK retries on its hint (3 attempts)", async () => {
    const { fetch, attempts, sent } = timingOut();
    const anthropic = anthropicClient(sim().server, { fetch, maxRetries: 2 });
    const error = await anthropic.messages
      .create({ model: "claude-sim", messages, max_tokens: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as Error).message).toMatch(/^429 llm-limiter: Admission on "tpm"/);
    expect([attempts(), sent()]).toEqual([3, 0]);
  });
});

describe("refusals through limiter.fetch() on the AI SDK (maxRetries 2)", () => {
  const openaiSim = useSimulator(OPENAI_QUOTA);
  const anthropicSim = useSimulator(ANTHROPIC_QUOTA);

  it.each([
    {
      name: "createOpenAI",
      budgets: { tpm: 1_000 },
      dimension: "tpm",
      model: (fetch: typeof globalThis.fetch) =>
        createOpenAI({ baseURL: `${openaiSim().server.url}/v1`, apiKey: "test-key", fetch }).chat("gpt-sim"),
    },
    {
      name: "createAnthropic",
      budgets: { itpm: 40_000, otpm: 1_000 },
      dimension: "otpm",
      model: (fetch: typeof globalThis.fetch) =>
        createAnthropic({ baseURL: `${anthropicSim().server.url}/v1`, apiKey: "test-key", fetch })("claude-sim"),
    },
  ])("$name, a call that can never fit: an APICallError 413, not retryable, after one attempt", async (provider) => {
    const { fetch, attempts, sent } = tooSmall(provider.budgets);
    const error = await generateText({
      model: provider.model(fetch),
      prompt: "Say twelve words.",
      maxOutputTokens: 2_000,
      maxRetries: 2,
    }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 413, isRetryable: false });
    expect((error as Error).message).toMatch(
      new RegExp(`^llm-limiter: Request costs \\d+ on "${provider.dimension}" but its capacity is 1000`),
    );
    expect([attempts(), sent()]).toEqual([1, 0]);
  });

  it("a wait past maxWaitMs: a retryable APICallError 429, retried on its hint (3 attempts, then a RetryError)", async () => {
    const { fetch, attempts, sent } = timingOut();
    const openai = createOpenAI({ baseURL: `${openaiSim().server.url}/v1`, apiKey: "test-key", fetch });
    const error = await generateText({
      model: openai.chat("gpt-sim"),
      prompt: "Say twelve words.",
      maxOutputTokens: 20,
      maxRetries: 2,
    }).catch((e: unknown) => e);
    expect(RetryError.isInstance(error)).toBe(true);
    expect((error as RetryError).reason).toBe("maxRetriesExceeded");
    const last = (error as RetryError).lastError;
    expect(last).toMatchObject({ statusCode: 429, isRetryable: true });
    expect((last as Error).message).toMatch(/^llm-limiter: Admission on "tpm"/);
    expect([attempts(), sent()]).toEqual([3, 0]);
  });
});

describe("an abort through limiter.fetch() on the AI SDK and LangChain.js still rejects as an abort", () => {
  const sim = useSimulator(OPENAI_QUOTA);

  it("generateText: an AbortError, after one attempt, leaving the queue", async () => {
    const { limiter, fetch, attempts, sent } = queuing();
    const openai = createOpenAI({ baseURL: `${sim().server.url}/v1`, apiKey: "test-key", fetch });
    const controller = new AbortController();
    const call = generateText({
      model: openai.chat("gpt-sim"),
      prompt: "Say twelve words.",
      maxOutputTokens: 20,
      maxRetries: 2,
      abortSignal: controller.signal,
    }).catch((e: unknown) => e);
    await eventually(() => limiter.snapshot().queued === 1);
    controller.abort();
    const error = await call;
    expect(error).toMatchObject({ name: "AbortError" });
    expect(APICallError.isInstance(error)).toBe(false);
    expect([attempts(), sent()]).toEqual([1, 0]);
    expect(limiter.snapshot().queued).toBe(0);
  });

  it("ChatOpenAI: an abort error, after one attempt, leaving the queue", async () => {
    const { limiter, fetch, attempts, sent } = queuing();
    const model = new ChatOpenAI({
      model: "gpt-sim",
      apiKey: "test-key",
      maxTokens: 20,
      maxRetries: 2,
      configuration: { baseURL: `${sim().server.url}/v1`, fetch },
    });
    const controller = new AbortController();
    const call = model.invoke("Say twelve words.", { signal: controller.signal }).catch((e: unknown) => e);
    await eventually(() => limiter.snapshot().queued === 1);
    controller.abort();
    const error = await call;
    expect(String((error as Error).name) + String((error as Error).message)).toMatch(/abort/i);
    expect([attempts(), sent()]).toEqual([1, 0]);
    expect(limiter.snapshot().queued).toBe(0);
  });
});

describe("refusals through limiter.fetch() on LangChain.js (maxRetries 2)", () => {
  const openaiSim = useSimulator(OPENAI_QUOTA);
  const anthropicSim = useSimulator(ANTHROPIC_QUOTA);

  it("ChatOpenAI, a call that can never fit: an error with the message, after one attempt", async () => {
    const { fetch, attempts, sent } = tooSmall({ tpm: 1_000 });
    const model = new ChatOpenAI({
      model: "gpt-sim",
      apiKey: "test-key",
      maxTokens: 2_000,
      maxRetries: 2,
      configuration: { baseURL: `${openaiSim().server.url}/v1`, fetch },
    });
    const error = await model.invoke("Say twelve words.").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 413 });
    expect((error as Error).message).toMatch(/llm-limiter: Request costs \d+ on "tpm" but its capacity is 1000/);
    expect([attempts(), sent()]).toEqual([1, 0]);
  });

  it("ChatAnthropic, a call that can never fit: an error with the message, after one attempt", async () => {
    const { fetch, attempts, sent } = tooSmall({ itpm: 40_000, otpm: 1_000 });
    const model = new ChatAnthropic({
      model: "claude-sim",
      apiKey: "test-key",
      maxTokens: 2_000,
      maxRetries: 2,
      anthropicApiUrl: anthropicSim().server.url,
      clientOptions: { fetch },
    });
    const error = await model.invoke("Say twelve words.").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 413 });
    expect((error as Error).message).toMatch(/llm-limiter: Request costs \d+ on "otpm" but its capacity is 1000/);
    expect([attempts(), sent()]).toEqual([1, 0]);
  });

  it("ChatOpenAI, a wait past maxWaitMs: a 429 with the message (retries off: LangChain's backoff is seconds)", async () => {
    const { fetch, attempts, sent } = timingOut();
    const model = new ChatOpenAI({
      model: "gpt-sim",
      apiKey: "test-key",
      maxTokens: 20,
      maxRetries: 0,
      configuration: { baseURL: `${openaiSim().server.url}/v1`, fetch },
    });
    const error = await model.invoke("Say twelve words.").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429 });
    expect((error as Error).message).toMatch(/llm-limiter: Admission on "tpm"/);
    expect([attempts(), sent()]).toEqual([1, 0]);
  });
});
