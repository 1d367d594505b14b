import { APIUserAbortError } from "@anthropic-ai/sdk";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { Limiter, estimateRequest } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { anthropicClient, useSimulator } from "../integration/helpers.js";
import { eventually, recording, type Recorded } from "./recording.js";
import type { ProviderServer } from "../../src/testing/index.js";

const request = {
  model: "claude-sim",
  max_tokens: 800,
  system: "You answer in exactly thirty words.",
  messages: [{ role: "user" as const, content: "Describe a token bucket." }],
};

/** A limiter (one call in flight) recording what its fetch does, and an Anthropic client on the simulator with it. */
function setUp(server: ProviderServer): { limiter: Limiter; anthropic: Anthropic; calls: Recorded[] } {
  const limiter = new Limiter({ itpm: 40_000, otpm: 8_000, concurrency: 1, provider: "anthropic", initial: "full" });
  const { admitter, calls } = recording(limiter);
  return { limiter, anthropic: anthropicClient(server, { fetch: limitedFetch(() => admitter) }), calls };
}

describe("limiter.fetch() on the Anthropic SDK", () => {
  const sim = useSimulator({
    itpm: 40_000,
    otpm: 8_000,
    concurrency: 1,
    dialect: "anthropic",
    latencyMs: 2,
    answerTokens: () => 30,
  });

  it("admits on the body's estimate and settles the message's usage", async () => {
    const { limiter, anthropic, calls } = setUp(sim().server);
    const message = await anthropic.messages.create(request);
    await eventually(() => calls[0]?.released === true);
    expect(calls).toEqual([
      {
        estimate: estimateRequest(request, { endpoint: "messages" }),
        settled: [{ input: message.usage.input_tokens, output: 30 }],
        synced: [200],
        released: true,
      },
    ]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, concurrency: { available: 1 } });
  });

  it("settles a stream on message_start's input and message_delta's output, holding the slot till the end", async () => {
    const { limiter, anthropic, calls } = setUp(sim().server);
    const streamOnce = async (): Promise<Anthropic.Usage> => {
      const stream = anthropic.messages.stream(request);
      for await (const _event of stream);
      return (await stream.finalMessage()).usage;
    };
    const [usage] = await Promise.all([streamOnce(), streamOnce()]);
    expect(sim().provider.stats()).toMatchObject({ rejected: 0, maxInFlight: 1 });
    expect(calls.map((c) => c.settled)).toEqual([
      [{ input: usage!.input_tokens, output: 30 }],
      [{ input: usage!.input_tokens, output: 30 }],
    ]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, concurrency: { available: 1 } });
  });

  it("rejects a queued request whose signal aborts", async () => {
    const { limiter, anthropic, calls } = setUp(sim().server);
    const first = await anthropic.messages.create({ ...request, stream: true });
    const controller = new AbortController();
    const second = anthropic.messages.create(request, { signal: controller.signal });
    await eventually(() => limiter.snapshot().queued === 1);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(APIUserAbortError);
    for await (const _event of first);
    expect(calls).toHaveLength(1);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0, concurrency: { available: 1 } });
  });
});

describe("limiter.fetch() on an Anthropic stream the caller leaves", () => {
  // message_delta comes a minute after message_start: the caller leaves long before, whatever the machine's speed.
  const sim = useSimulator({
    itpm: 40_000,
    otpm: 8_000,
    dialect: "anthropic",
    latencyMs: 60_000,
    answerTokens: () => 30,
  });

  it("keeps the estimate when the stream is aborted before message_delta", async () => {
    const { limiter, anthropic, calls } = setUp(sim().server);
    const stream = anthropic.messages.stream(request);
    for await (const event of stream) if (event.type === "message_start") break;
    await eventually(() => calls[0]?.released === true);
    expect(calls[0]?.settled).toEqual([]);
    expect(limiter.snapshot().dimensions.otpm!.available).toBeLessThanOrEqual(8_000 - request.max_tokens + 1);
  });
});
