import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { ADMITTED_HEADER } from "../../src/fetch/call-headers.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { Limiter } from "../../src/index.js";
import { useSimulator } from "../integration/helpers.js";
import { eventually, recording as recordingFetch } from "../fetch/recording.js";
import { openAIResponses, recording, watchedFetch } from "./helpers.js";

// `@ai-sdk/openai`'s default model, `openai(id)`, calls the Responses API (POST /v1/responses).
const system = "You answer questions about token buckets, briefly.";
const prompt = "Why does a token bucket refill continuously rather than once a minute?";

describe("the AI SDK's default OpenAI model (the Responses API) through the middleware", () => {
  const sim = useSimulator({ tpm: 100_000, concurrency: 1, latencyMs: 5, answerTokens: () => 25 });

  it("generateText: admits, settles the response's usage, releases", async () => {
    const { limiter, admissions } = recording(new Limiter({ tpm: 100_000, provider: "openai" }));
    const wire = watchedFetch();
    const result = await generateText({
      model: openAIResponses(sim().server, rateLimitMiddleware(limiter), wire.fetch),
      system,
      prompt,
      maxOutputTokens: 300,
      maxRetries: 0,
    });
    const call = sim().provider.stats().calls.at(-1);
    expect(call).toMatchObject({ status: 200, maxTokens: 300, actual: 25 });
    expect(admissions).toHaveLength(1);
    expect(admissions[0]?.estimate).toMatchObject({ output: 300 });
    expect(admissions[0]?.settled).toEqual([{ input: call?.prompt, output: 25 }]);
    expect(result.usage).toMatchObject({ inputTokens: call?.prompt, outputTokens: 25 });
    expect(result.finishReason).toBe("stop");
    expect(admissions[0]?.reservation.released).toBe(true);
    expect(wire.sent[0]?.get(ADMITTED_HEADER)).toBe("1");
  });

  it("streamText: holds the slot until each stream ends and settles its finish part's usage", async () => {
    const { limiter, admissions } = recording(new Limiter({ tpm: 100_000, concurrency: 1, provider: "openai" }));
    const model = openAIResponses(sim().server, rateLimitMiddleware(limiter));
    const before = sim().provider.stats().calls.length;
    const texts = await Promise.all(
      [0, 1].map(async () => {
        let text = "";
        for await (const delta of streamText({ model, prompt, maxOutputTokens: 500, maxRetries: 0 }).textStream) {
          text += delta;
        }
        return text;
      }),
    );
    expect(texts.map((text) => text.split(" ").length)).toEqual([25, 25]);
    const calls = sim().provider.stats().calls.slice(before);
    // The simulator allows one call in flight: a slot freed before a stream ended would have drawn a 429.
    expect(calls.map((c) => c.status)).toEqual([200, 200]);
    expect(admissions.map((a) => a.settled)).toEqual(calls.map((c) => [{ input: c.prompt, output: 25 }]));
    expect(admissions.every((a) => a.reservation.released)).toBe(true);
  });
});

describe("the AI SDK's default OpenAI model (the Responses API) through limiter.fetch()", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 12 });

  it("createOpenAI({ fetch }): generateText and streamText settle their usage", async () => {
    const { admitter, calls } = recordingFetch(new Limiter({ tpm: 60_000, initial: "full" }));
    const openai = createOpenAI({
      baseURL: `${sim().server.url}/v1`,
      apiKey: "test-key",
      fetch: limitedFetch(() => admitter),
    });
    await generateText({ model: openai("gpt-sim"), prompt: "Say twelve words.", maxOutputTokens: 300, maxRetries: 0 });
    await streamText({ model: openai("gpt-sim"), prompt: "Say twelve words.", maxOutputTokens: 300 }).consumeStream();
    await eventually(() => calls.length === 2 && calls.every((c) => c.released));
    const served = sim().provider.stats().calls.slice(-2);
    expect(calls.map((c) => c.settled)).toEqual(served.map((c) => [{ input: c.prompt, output: 12 }]));
    expect(calls.map((c) => c.estimate)).toMatchObject([{ output: 300 }, { output: 300 }]);
  });
});
