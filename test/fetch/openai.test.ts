import { APIUserAbortError, RateLimitError } from "openai";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { Limiter, estimateRequest } from "../../src/index.js";
import { openAIClient, spend, useSimulator } from "../integration/helpers.js";
import { eventually, recordedOpenAI } from "./recording.js";

const messages = [{ role: "user" as const, content: "Write ten words about rate limits." }];
const request = { model: "gpt-sim", messages, max_tokens: 500 };

describe("limiter.fetch() on the OpenAI SDK", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("admits on the body's estimate and settles the response's usage", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server);
    const answer = await openai.chat.completions.create(request);
    await eventually(() => calls[0]?.released === true);
    expect(calls).toEqual([
      {
        estimate: estimateRequest(request, { endpoint: "chat.completions" }),
        settled: [{ input: answer.usage!.prompt_tokens, output: answer.usage!.completion_tokens }],
        synced: [200],
        released: true,
      },
    ]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("adds include_usage to a stream, settles its usage chunk and hides it from the caller", async () => {
    const { openai, calls } = recordedOpenAI(sim().server);
    const stream = await openai.chat.completions.create({ ...request, stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.some((c) => c.choices.length === 0 || c.usage)).toBe(false);
    expect(calls[0]).toMatchObject({ settled: [{ output: 10 }], synced: [200], released: true });
  });

  it("passes the usage chunk on when the caller asked for it", async () => {
    const { openai, calls } = recordedOpenAI(sim().server);
    const stream = await openai.chat.completions.create({
      ...request,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    expect(usage?.completion_tokens).toBe(10);
    expect(calls[0]?.settled).toEqual([{ input: usage!.prompt_tokens, output: 10 }]);
  });

  it("rejects a queued request whose signal aborts, leaving nothing behind", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server, { concurrency: 1 });
    const first = await openai.chat.completions.create({ ...request, stream: true });
    const controller = new AbortController();
    const second = openai.chat.completions.create(request, { signal: controller.signal });
    await eventually(() => limiter.snapshot().queued === 1);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(APIUserAbortError);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 1 });
    for await (const _chunk of first);
    expect(calls).toHaveLength(1);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0, concurrency: { available: 1 } });
  });
});

describe("limiter.fetch() on the OpenAI SDK, its quota spent", () => {
  // A simulator of its own: the calls of other tests may still hold some of the quota to spend.
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("with SDK retries off, syncs the 429 and surfaces it", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server);
    await spend(sim().provider, 60_000);
    await expect(openai.chat.completions.create({ ...request, max_tokens: 2_000 })).rejects.toBeInstanceOf(
      RateLimitError,
    );
    // Synced at its headers, then again with its body (for the hint and limit type the body adds).
    expect(calls).toMatchObject([{ synced: [429, 429], settled: [], released: true }]);
    // The 429 paused admission: a small call is not admitted now.
    expect(limiter.tryAcquire({ input: 1, output: 1 })).toBeUndefined();
  });
});

describe("limiter.fetch() on OpenAI streams with one slot", () => {
  const sim = useSimulator({ tpm: 60_000, concurrency: 1, latencyMs: 2, answerTokens: () => 10 });

  it("holds the concurrency slot until each stream ends", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server, { concurrency: 1 });
    const streamOnce = async (): Promise<number> => {
      const stream = await openai.chat.completions.create({ ...request, stream: true });
      let chunks = 0;
      for await (const _chunk of stream) chunks += 1;
      return chunks;
    };
    await Promise.all([streamOnce(), streamOnce()]);
    // The simulator allows one call in flight: a slot freed before a stream ended would have drawn a 429.
    expect(sim().provider.stats()).toMatchObject({ rejected: 0, maxInFlight: 1 });
    expect(calls.map((c) => c.settled.length)).toEqual([1, 1]);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, concurrency: { available: 1 } });
  });
});

describe("limiter.fetch() on an OpenAI stream the caller leaves", () => {
  // The usage comes a minute after the first chunk: the caller leaves long before, whatever the machine's speed.
  const sim = useSimulator({ tpm: 60_000, latencyMs: 60_000, answerTokens: () => 10 });

  it("keeps the estimate when the caller stops reading before the usage", async () => {
    const { limiter, openai, calls } = recordedOpenAI(sim().server);
    const started = performance.now();
    const stream = await openai.chat.completions.create({ ...request, stream: true });
    for await (const _chunk of stream) break;
    await eventually(() => calls[0]?.released === true);
    expect(calls[0]?.settled).toEqual([]);
    const { input, output } = calls[0]!.estimate as { input: number; output: number };
    // No refund; only refill since the request (60,000 TPM: a token a ms), once its response showed it arrived.
    const refilled = Math.ceil(performance.now() - started);
    expect(limiter.snapshot().dimensions.tpm!.available).toBeLessThanOrEqual(60_000 - (input + output) + refilled + 1);
    expect(limiter.snapshot().inFlight).toBe(0);
  });
});

// A key of its own: the calls of the tests above draw on their simulator's bucket, and a limiter takes the
// remaining it reports as the truth (a loaded run saw the level 5 under, the earlier calls not yet refilled).
describe("limiter.fetch() on the OpenAI SDK, on a fresh key", () => {
  const fresh = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("Limiter.fetch admits through the limiter itself", async () => {
    const limiter = new Limiter({ tpm: 60_000, provider: "openai", initial: "full" });
    const openai = openAIClient(fresh().server, { fetch: limiter.fetch() });
    const answer = await openai.chat.completions.create(request);
    await eventually(() => limiter.snapshot().inFlight === 0);
    // Settled: the level is the limit less what was used (less than the estimate), give or take the refill.
    const used = answer.usage!.total_tokens;
    expect(limiter.snapshot().dimensions.tpm!.available).toBeGreaterThanOrEqual(60_000 - used - 1);
  });
});
