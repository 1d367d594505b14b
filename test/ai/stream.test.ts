import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { Limiter } from "../../src/index.js";
import { useSimulator } from "../integration/helpers.js";
import { anthropicMessages, openAIChat, recording, cutAfterEvents, userMessage } from "./helpers.js";

const prompt = "Stream me a few words about token buckets.";

/** Reads a streamed answer to its end; resolves to the text. */
async function readAll(result: { textStream: AsyncIterable<string> }): Promise<string> {
  let text = "";
  for await (const delta of result.textStream) text += delta;
  return text;
}

describe("streamText through the middleware, OpenAI chat completions", () => {
  const sim = useSimulator({ tpm: 100_000, concurrency: 1, latencyMs: 5, answerTokens: () => 20 });

  it("holds the limiter's slot until each stream ends, and settles its finish part's usage", async () => {
    const { limiter, admissions } = recording(new Limiter({ tpm: 100_000, concurrency: 1, provider: "openai" }));
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter));

    const texts = await Promise.all(
      [0, 1].map(() => readAll(streamText({ model, prompt, maxOutputTokens: 500, maxRetries: 0 }))),
    );

    expect(texts.every((text) => text.length > 0)).toBe(true);
    const calls = sim().provider.stats().calls;
    // Had the slot been freed before a stream ended, the simulator's own cap of one would have said 429.
    expect(sim().provider.stats()).toMatchObject({ rejected: 0, served: 2, maxInFlight: 1 });
    expect(admissions.map((a) => a.settled)).toEqual(calls.map((c) => [{ input: c.prompt, output: 20 }]));
    expect(admissions.every((a) => a.reservation.released)).toBe(true);
  });
});

describe("a stream through the middleware that ends early", () => {
  const sim = useSimulator({ tpm: 100_000, latencyMs: 5, answerTokens: () => 20 });

  it("releases when the stream's reader cancels it, and the estimate stands", async () => {
    const inner = new Limiter({ tpm: 100_000, concurrency: 1, provider: "openai" });
    const { limiter, admissions } = recording(inner);
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter));
    const start = performance.now();

    // Read only as asked: the parts after the first, the finish part among them, are never read.
    const { stream } = await model.doStream({ prompt: [userMessage(prompt)], maxOutputTokens: 2_000 });
    const reader = stream.getReader();
    expect((await reader.read()).done).toBe(false);
    expect(inner.snapshot()).toMatchObject({ inFlight: 1 });
    await reader.cancel();

    expect(inner.snapshot()).toMatchObject({ inFlight: 0, concurrency: { available: 1 } });
    expect(admissions[0]?.reservation.released).toBe(true);
    expect(admissions[0]?.settled).toEqual([]);
    // The 2,000 tokens of output reserved were not given back: the level is below what refill alone brought back
    // since the call was made (100,000 a minute, on real time: a loaded machine takes a while over HTTP).
    const refilled = ((performance.now() - start) * 100_000) / 60_000;
    expect(inner.snapshot().dimensions.tpm?.available).toBeLessThan(100_000 - 2_000 + refilled);
  });

  it("releases when streamText's abortSignal aborts mid-stream, and the estimate stands", async () => {
    const inner = new Limiter({ tpm: 100_000, concurrency: 1, provider: "openai" });
    const { limiter, admissions } = recording(inner);
    // The role chunk and one delta, then nothing until the abort.
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter), cutAfterEvents(2, "stall"));
    const controller = new AbortController();

    const result = streamText({ model, prompt, maxOutputTokens: 2_000, maxRetries: 0, abortSignal: controller.signal });
    const reader = result.textStream.getReader();
    expect((await reader.read()).done).toBe(false);
    expect(inner.snapshot()).toMatchObject({ inFlight: 1 });
    controller.abort(new Error("the user left"));
    while (!(await reader.read().catch(() => ({ done: true }))).done);

    expect(inner.snapshot()).toMatchObject({ inFlight: 0, concurrency: { available: 1 } });
    expect(admissions[0]?.reservation.released).toBe(true);
    expect(admissions[0]?.settled).toEqual([]);
  });

  it("releases when the response body fails mid-stream", async () => {
    const inner = new Limiter({ tpm: 100_000, concurrency: 1, provider: "openai" });
    const { limiter, admissions } = recording(inner);
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter), cutAfterEvents(2, "fail"));

    const errors: unknown[] = [];
    const result = streamText({
      model,
      prompt,
      maxOutputTokens: 500,
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    await readAll(result).catch((error: unknown) => errors.push(error));

    expect(errors.length).toBeGreaterThan(0);
    expect(admissions[0]?.reservation.released).toBe(true);
    expect(admissions[0]?.settled).toEqual([]);
    expect(inner.snapshot()).toMatchObject({ inFlight: 0 });
  });
});

describe("streamText through the middleware, Anthropic messages", () => {
  const quota = { itpm: 40_000, otpm: 8_000 };
  const sim = useSimulator({ ...quota, dialect: "anthropic", latencyMs: 5, answerTokens: () => 30 });

  it("settles { input, output } from message_start and message_delta as the finish part carries them", async () => {
    const { limiter, admissions } = recording(new Limiter({ ...quota, provider: "anthropic" }));
    const model = anthropicMessages(sim().server, rateLimitMiddleware(limiter));

    await readAll(streamText({ model, prompt, maxOutputTokens: 600, maxRetries: 0 }));

    const [call] = sim().provider.stats().calls;
    expect(admissions[0]?.estimate).toMatchObject({ output: 600 });
    expect(admissions[0]?.settled).toEqual([{ input: call?.prompt, output: 30 }]);
    expect(admissions[0]?.reservation.released).toBe(true);
  });
});
