import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { useSimulator } from "../integration/helpers.js";
import { eventually, recording } from "./recording.js";

/** A recording limiter and its fetch. */
function limited(limits: { tpm: number } | { itpm: number; otpm: number }): ReturnType<typeof recording> & {
  fetch: typeof globalThis.fetch;
} {
  const limiter = new Limiter({ ...limits, initial: "full" });
  const recorded = recording(limiter);
  return { ...recorded, fetch: limitedFetch(() => recorded.admitter) };
}

describe("LangChain.js and the AI SDK on OpenAI through limiter.fetch()", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 12 });

  it("ChatOpenAI: invoke and stream settle their usage", async () => {
    const { fetch, calls } = limited({ tpm: 60_000 });
    const model = new ChatOpenAI({
      model: "gpt-sim",
      apiKey: "test-key",
      maxTokens: 300,
      maxRetries: 0,
      configuration: { baseURL: `${sim().server.url}/v1`, fetch },
    });
    await model.invoke("Say twelve words.");
    for await (const _chunk of await model.stream("Say twelve words.")); // include_usage: LangChain asks, or the fetch adds it
    await eventually(() => calls.length === 2 && calls.every((c) => c.released));
    expect(calls.map((c) => c.settled.map((u) => (u as { output: number }).output))).toEqual([[12], [12]]);
  });

  it("the AI SDK's createOpenAI: generateText and streamText settle their usage", async () => {
    const { fetch, calls } = limited({ tpm: 60_000 });
    const openai = createOpenAI({ baseURL: `${sim().server.url}/v1`, apiKey: "test-key", fetch });
    await generateText({
      model: openai.chat("gpt-sim"),
      prompt: "Say twelve words.",
      maxOutputTokens: 300,
      maxRetries: 0,
    });
    const streamed = streamText({ model: openai.chat("gpt-sim"), prompt: "Say twelve words.", maxOutputTokens: 300 });
    await streamed.consumeStream();
    await eventually(() => calls.length === 2 && calls.every((c) => c.released));
    expect(calls.map((c) => c.settled.map((u) => (u as { output: number }).output))).toEqual([[12], [12]]);
  });
});

describe("LangChain.js and the AI SDK on Anthropic through limiter.fetch()", () => {
  const sim = useSimulator({ itpm: 40_000, otpm: 8_000, dialect: "anthropic", latencyMs: 2, answerTokens: () => 12 });

  it("ChatAnthropic: invoke and stream settle their usage", async () => {
    const { fetch, calls } = limited({ itpm: 40_000, otpm: 8_000 });
    const model = new ChatAnthropic({
      model: "claude-sim",
      apiKey: "test-key",
      maxTokens: 300,
      maxRetries: 0,
      anthropicApiUrl: sim().server.url,
      clientOptions: { fetch },
    });
    await model.invoke("Say twelve words.");
    for await (const _chunk of await model.stream("Say twelve words."));
    await eventually(() => calls.length === 2 && calls.every((c) => c.released));
    expect(calls.map((c) => c.settled.map((u) => (u as { output: number }).output))).toEqual([[12], [12]]);
  });

  it("the AI SDK's createAnthropic: streamText settles its usage", async () => {
    const { fetch, calls } = limited({ itpm: 40_000, otpm: 8_000 });
    const anthropic = createAnthropic({ baseURL: `${sim().server.url}/v1`, apiKey: "test-key", fetch });
    const streamed = streamText({ model: anthropic("claude-sim"), prompt: "Say twelve words.", maxOutputTokens: 300 });
    await streamed.consumeStream();
    await eventually(() => calls.length === 1 && calls[0]!.released);
    expect(calls[0]?.settled.map((u) => (u as { output: number }).output)).toEqual([12]);
  });
});
