import { APICallError, generateText, wrapLanguageModel } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failedResponse } from "../../src/ai/failure.js";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import type { ModelCallParams, WrappedModel } from "../../src/ai/index.js";
import { FILE_TOKENS, promptTokens } from "../../src/ai/prompt.js";
import { settledUsage } from "../../src/ai/usage.js";
import { textTokens } from "../../src/estimate/text.js";
import { Limiter } from "../../src/index.js";
import { recording } from "./helpers.js";

/** Base64url without padding, of the UTF-8 bytes. */
const base64url = (text: string): string => Buffer.from(text).toString("base64url");

type Message = ModelCallParams["prompt"][number];

/** Message overhead (3 each) and reply priming (3), as OpenAI's cookbook counts them. */
const overhead = (messages: number): number => 3 + 3 * messages;

const user = (...content: Extract<Message, { role: "user" }>["content"]): Message => ({ role: "user", content });

describe("promptTokens", () => {
  it("counts the system prompt and each message's text, plus each message's overhead", () => {
    const system = "You answer briefly.";
    const question = "Why does the bucket refill?";
    const tokens = promptTokens({
      prompt: [{ role: "system", content: system }, user({ type: "text", text: question })],
    });
    expect(tokens).toBe(overhead(2) + textTokens(system) + textTokens(question));
  });

  it("counts tool calls, tool results and tool definitions by their JSON", () => {
    const input = { city: "Paris", days: 3 };
    const output = { forecast: ["sun", "rain", "sun"] };
    const inputSchema = { type: "object" as const, properties: { city: { type: "string" as const } } };
    const tokens = promptTokens({
      prompt: [
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "1", toolName: "weather", input }] },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "1", toolName: "weather", output: { type: "json", value: output } },
          ],
        },
      ],
      tools: [{ type: "function", name: "weather", description: "The forecast.", inputSchema }],
    });
    expect(tokens).toBe(
      overhead(2) +
        2 * textTokens("weather") +
        textTokens(JSON.stringify(input)) +
        textTokens(JSON.stringify(output)) +
        textTokens("weather") +
        textTokens("The forecast.") +
        textTokens(JSON.stringify(inputSchema)),
    );
  });

  it("counts an image or a file behind a URL as FILE_TOKENS, an inline text file as its text", () => {
    const text = "name,tokens\nbucket,42\n";
    const files: [Message, number][] = [
      [user({ type: "file", mediaType: "image/png", data: new Uint8Array(100_000) }), FILE_TOKENS],
      [user({ type: "file", mediaType: "image/jpeg", data: new URL("https://example.com/cat.jpg") }), FILE_TOKENS],
      [user({ type: "file", mediaType: "application/pdf", data: "JVBERi0xLjQK" }), FILE_TOKENS],
      [user({ type: "file", mediaType: "text/csv", data: new TextEncoder().encode(text) }), textTokens(text)],
      [user({ type: "file", mediaType: "text/csv", data: Buffer.from(text).toString("base64") }), textTokens(text)],
      [user({ type: "file", mediaType: "text/plain", data: "https://example.com/notes.txt" }), FILE_TOKENS],
      // base64url without padding reads as base64 does; text that is not base64 is a file whose text is not read.
      [user({ type: "file", mediaType: "text/csv", data: base64url(text) }), textTokens(text)],
      [user({ type: "file", mediaType: "text/plain", data: "not base64!" }), FILE_TOKENS],
    ];
    for (const [message, expected] of files) expect(promptTokens({ prompt: [message] })).toBe(overhead(1) + expected);
  });

  it("counts tool results of every kind", () => {
    const result = (output: Extract<Exclude<Message["content"], string>[number], { type: "tool-result" }>["output"]) =>
      promptTokens({
        prompt: [{ role: "tool", content: [{ type: "tool-result", toolCallId: "1", toolName: "t", output }] }],
      }) -
      overhead(1) -
      textTokens("t");
    expect(result({ type: "text", value: "sunny" })).toBe(textTokens("sunny"));
    expect(result({ type: "error-text", value: "no such city" })).toBe(textTokens("no such city"));
    expect(result({ type: "error-json", value: { code: 404 } })).toBe(textTokens('{"code":404}'));
    expect(result({ type: "execution-denied", reason: "not allowed" })).toBe(textTokens("not allowed"));
    expect(
      result({
        type: "content",
        value: [
          { type: "text", text: "a chart:" },
          { type: "image-data", data: "iVBORw0KGgo=", mediaType: "image/png" },
        ],
      }),
    ).toBe(textTokens("a chart:") + FILE_TOKENS);
  });

  it("never falls as messages are added: each costs its overhead at least", () => {
    const text = fc.string({ maxLength: 200 });
    const message = fc.oneof(
      text.map((content): Message => ({ role: "system", content })),
      text.map((t): Message => user({ type: "text", text: t })),
      text.map((t): Message => ({ role: "assistant", content: [{ type: "reasoning", text: t }] })),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 10 }), message, (prompt, extra) => {
        expect(promptTokens({ prompt: [...prompt, extra] })).toBeGreaterThanOrEqual(promptTokens({ prompt }) + 3);
      }),
    );
  });
});

describe("settledUsage", () => {
  const usage = (total: number | undefined, cacheRead: number | undefined, output: number | undefined) => ({
    inputTokens: { total, noCache: undefined, cacheRead, cacheWrite: undefined },
    outputTokens: { total: output, text: undefined, reasoning: undefined },
  });

  it("leaves cache reads out of the input unless they count", () => {
    expect(settledUsage(usage(1_000, 800, 50), false)).toEqual({ input: 200, output: 50 });
    // Counted, the reads are part of the input, and named so that the quotas price them apart.
    expect(settledUsage(usage(1_000, 800, 50), true)).toEqual({ input: 1_000, output: 50, cachedInput: 800 });
    expect(settledUsage(usage(1_000, undefined, 50), false)).toEqual({ input: 1_000, output: 50 });
  });

  it("is undefined (the estimate stands) unless both totals are counts", () => {
    for (const [input, output] of [
      [undefined, 50],
      [1_000, undefined],
      [Number.NaN, 50],
      [-1, 50],
      [1_000, Infinity],
    ] as const) {
      expect(settledUsage(usage(input, undefined, output), true)).toBeUndefined();
    }
    expect(settledUsage(undefined, true)).toBeUndefined();
  });
});

describe("failedResponse", () => {
  const error = new APICallError({
    message: "Rate limit reached",
    url: "https://api.example.com/v1/chat/completions",
    requestBodyValues: {},
    statusCode: 429,
    responseHeaders: { "retry-after": "2" },
    responseBody: '{"error":{"type":"tokens"}}',
  });

  it("reads an APICallError's status, headers and body, also as another error's cause", () => {
    const expected = {
      headers: { "retry-after": "2" },
      options: { status: 429, body: '{"error":{"type":"tokens"}}' },
    };
    expect(failedResponse(error)).toEqual(expected);
    expect(failedResponse(new Error("wrapped", { cause: error }))).toEqual(expected);
  });

  it("is undefined for an error without a response", () => {
    expect(failedResponse(new TypeError("fetch failed"))).toBeUndefined();
    expect(failedResponse(new DOMException("aborted", "AbortError"))).toBeUndefined();
    expect(failedResponse(undefined)).toBeUndefined();
  });
});

describe("the middleware over a model in process", () => {
  /** A model that answers every call with `cacheRead` of its 1,000 input tokens read from the cache. */
  const cachingModel = (provider: string): WrappedModel => ({
    specificationVersion: "v3",
    provider,
    modelId: "cached",
    supportedUrls: {},
    doGenerate: async () => ({
      content: [{ type: "text", text: "cached answer" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 1_000, noCache: 100, cacheRead: 900, cacheWrite: 0 },
        outputTokens: { total: 20, text: 20, reasoning: undefined },
      },
      warnings: [],
    }),
    doStream: () => Promise.reject(new Error("not used")),
  });

  it.each([
    ["anthropic.messages", undefined, 100],
    ["vertex.anthropic.messages", undefined, 100],
    ["openai.chat", undefined, 1_000],
    ["anthropic.messages", true, 1_000],
    ["openai.chat", false, 100],
  ] as const)("%s with countCacheReads %s settles %i input tokens", async (provider, countCacheReads, input) => {
    const { limiter, admissions } = recording(new Limiter({ itpm: 100_000, otpm: 10_000 }));
    const middleware = rateLimitMiddleware(limiter, countCacheReads === undefined ? {} : { countCacheReads });
    const model = wrapLanguageModel({ model: cachingModel(provider), middleware });

    await generateText({ model, prompt: "Again?", maxRetries: 0 });

    // Where the 900 cache reads count as input, they are named as its cached part.
    expect(admissions[0]?.settled).toEqual([
      input === 1_000 ? { input, output: 20, cachedInput: 900 } : { input, output: 20 },
    ]);
  });

  it("names cache writes as part of the input", () => {
    const written = {
      inputTokens: { total: 1_000, noCache: 400, cacheRead: 500, cacheWrite: 100 },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    };
    expect(settledUsage(written, false)).toEqual({ input: 500, output: 5, cacheWrite: 100 });
    expect(settledUsage(written, true)).toEqual({ input: 1_000, output: 5, cachedInput: 500, cacheWrite: 100 });
  });

  it.each([
    [-1, RangeError],
    [{ input: 10 }, TypeError],
    [100, TypeError], // a number where input and output tokens are limited apart
  ] as const)("rejects a call whose `estimate` returns %o with %s, and holds nothing", async (estimate, type) => {
    const inner = new Limiter({ itpm: 100_000, otpm: 10_000 });
    const middleware = rateLimitMiddleware(inner, { estimate: () => estimate as never });
    const model = wrapLanguageModel({ model: cachingModel("openai.chat"), middleware });

    await expect(generateText({ model, prompt: "Again?", maxRetries: 0 })).rejects.toThrow(type);
    expect(inner.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
  });
});
