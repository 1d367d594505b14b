import { RateLimitError } from "openai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { Limiter, estimateRequest } from "../../src/index.js";
import { openAIClient, spend, useSimulator } from "../integration/helpers.js";
import { eventually, recordedOpenAI } from "./recording.js";

const responseRequest = {
  model: "gpt-sim",
  instructions: "Answer in ten words.",
  input: "Write ten words about rate limits.",
  max_output_tokens: 500,
};
const embeddingRequest = { model: "text-embedding-sim", input: ["a token bucket", "a sliding window"] };

describe("limiter.fetch() on the OpenAI SDK's Responses API and embeddings", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("responses.create: admits on the body's estimate and settles the response's usage", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server);
    const response = await openai.responses.create(responseRequest);
    await eventually(() => calls[0]?.released === true);
    expect(calls).toEqual([
      {
        estimate: estimateRequest(responseRequest, { endpoint: "responses" }),
        settled: [{ input: response.usage!.input_tokens, output: 10 }],
        synced: [200],
        released: true,
      },
    ]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("responses.create with stream: settles on response.completed and passes every event on", async () => {
    const { openai, calls } = recordedOpenAI(sim().server);
    const stream = await openai.responses.create({ ...responseRequest, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.type).toBe("response.completed");
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    await eventually(() => calls[0]?.released === true);
    expect(calls[0]).toMatchObject({
      settled: [{ input: completed.response.usage!.input_tokens, output: 10 }],
      synced: [200],
    });
  });

  it("embeddings.create: admits the input alone and settles prompt_tokens, no output", async () => {
    const { openai, calls } = recordedOpenAI(sim().server);
    const embeddings = await openai.embeddings.create(embeddingRequest);
    expect(embeddings.data).toHaveLength(2);
    await eventually(() => calls[0]?.released === true);
    const estimate = estimateRequest(embeddingRequest, { endpoint: "embeddings" });
    expect(estimate.output).toBe(0);
    expect(calls).toEqual([
      { estimate, settled: [{ input: embeddings.usage.prompt_tokens, output: 0 }], synced: [200], released: true },
    ]);
  });
});

describe("limiter.fetch() on the Responses API and embeddings, the quota spent, SDK retries off", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("syncs each 429 and surfaces it", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server);
    await spend(sim().provider, 60_000);
    await expect(openai.responses.create(responseRequest)).rejects.toBeInstanceOf(RateLimitError);
    // Synced at its headers, then again with its body (for the hint and limit type the body adds).
    expect(calls).toMatchObject([{ synced: [429, 429], settled: [], released: true }]);
    // The 429 paused admission.
    expect(limiter.tryAcquire({ input: 1, output: 0 })).toBeUndefined();
  });
});

// A key of its own: the calls of the tests above draw on their simulator's bucket, and a limiter takes the
// remaining it reports as the truth.
describe("limiter.fetch() on embeddings, on a fresh key", () => {
  const fresh = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("Limiter.fetch holds no output for an embeddings call: the level is the limit less its input", async () => {
    const limiter = new Limiter({ tpm: 60_000, provider: "openai", initial: "full" });
    const openai = openAIClient(fresh().server, { fetch: limiter.fetch() });
    const embeddings = await openai.embeddings.create(embeddingRequest);
    await eventually(() => limiter.snapshot().inFlight === 0);
    // Refill only raises the level; a reserved output (defaultMaxTokens, 4096) would show far below.
    expect(limiter.snapshot().dimensions.tpm!.available).toBeGreaterThanOrEqual(
      60_000 - embeddings.usage.total_tokens - 1,
    );
  });
});
