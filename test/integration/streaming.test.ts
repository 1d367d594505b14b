import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import type { Estimate, LimiterSnapshot, Reservation, Usage } from "../../src/index.js";
import { anthropicClient, openAIClient, refill, splitEstimate, tokensEstimate, useSimulator } from "./helpers.js";
import type { Simulator } from "./helpers.js";

/** One streamed call as the limiter saw it. */
interface Streamed<U extends Usage> {
  used: U;
  /** Taken at the first event, while the stream is open. */
  midStream: LimiterSnapshot;
  /** The watched dimension's level just before and after `settle`, and how long that took. */
  before: number;
  after: number;
  settleMs: number;
}

/**
 * The manual form a stream needs: acquire, stream (syncing the head's headers),
 * settle the final usage, release. `consume` reads the stream, calls `onEvent`
 * for every event and resolves to the usage the stream reported.
 */
async function streamThrough<U extends Usage>(
  limiter: Limiter,
  estimate: Estimate,
  watched: string,
  consume: (reservation: Reservation, onEvent: () => void) => Promise<U>,
): Promise<Streamed<U>> {
  const reservation = await limiter.acquire(estimate);
  try {
    let midStream: LimiterSnapshot | undefined;
    const used = await consume(reservation, () => {
      midStream ??= limiter.snapshot();
    });
    if (!midStream) throw new Error("the stream had no events");
    const start = performance.now();
    const before = limiter.snapshot().dimensions[watched]?.available ?? NaN;
    reservation.settle(used);
    const after = limiter.snapshot().dimensions[watched]?.available ?? NaN;
    return { used, midStream, before, after, settleMs: performance.now() - start };
  } finally {
    reservation.release();
  }
}

/** Two streams at once on one concurrency slot: the second waits for the first to end. */
function expectOneSlotHeldPerStream(
  [first, second]: readonly Streamed<Usage>[],
  limiter: Limiter,
  { provider }: Simulator,
): void {
  expect(first?.midStream).toMatchObject({ inFlight: 1, queued: 1, concurrency: { limit: 1, available: 0 } });
  expect(second?.midStream).toMatchObject({ inFlight: 1, queued: 0, concurrency: { limit: 1, available: 0 } });
  expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0, concurrency: { limit: 1, available: 1 } });
  // Had the slot been freed before a stream ended, the simulator's own cap of one would have said 429.
  expect(provider.stats()).toMatchObject({ rejected: 0, served: 2, maxInFlight: 1 });
}

/**
 * The unused part of the estimate came back (up to the capacity, `limit`), give
 * or take what the bucket refilled while `settle` ran. Both levels are floored to
 * whole units, so `before` may read up to one unit below what it was.
 */
function expectRefunded({ before, after, settleMs }: Streamed<Usage>, unused: number, limit: number): void {
  const expected = Math.min(limit, before + unused);
  expect(after).toBeGreaterThanOrEqual(expected - 1e-6);
  expect(after).toBeLessThanOrEqual(Math.min(limit, expected + refill(limit, settleMs) + 1));
}

describe("OpenAI streaming with include_usage", () => {
  const sim = useSimulator({ tpm: 20_000, concurrency: 1, latencyMs: 5, answerTokens: () => 20 });

  it("holds the slot until the stream ends and settles the usage chunk", async () => {
    const openai = openAIClient(sim().server);
    const limiter = new Limiter({ tpm: 20_000, concurrency: 1, provider: "openai" });
    const messages = [{ role: "user" as const, content: "Stream me twenty words." }];
    // Far above the answer, so the refund stands out from any refill while the stream ran.
    const maxTokens = 2_000;
    const estimate = tokensEstimate({ messages }, maxTokens);
    const streamOnce = (): Promise<Streamed<number>> =>
      streamThrough(limiter, estimate, "tpm", async (reservation, onEvent) => {
        const { data: stream, response } = await openai.chat.completions
          .create(
            {
              model: "gpt-sim",
              messages,
              max_tokens: maxTokens,
              stream: true,
              stream_options: { include_usage: true },
            },
            { signal: reservation.signal },
          )
          .withResponse();
        // A stream's headers leave at admission, before any output: the estimate is still charged.
        reservation.sync(response.headers);
        let used: number | undefined;
        for await (const chunk of stream) {
          onEvent();
          used = chunk.usage?.total_tokens ?? used;
        }
        if (used === undefined) throw new Error("no usage chunk");
        return used;
      });

    const streamed = await Promise.all([streamOnce(), streamOnce()]);

    expectOneSlotHeldPerStream(streamed, limiter, sim());
    for (const s of streamed) expectRefunded(s, estimate - s.used, 20_000);
  });
});

describe("Anthropic messages.stream()", () => {
  const sim = useSimulator({
    itpm: 40_000,
    otpm: 8_000,
    concurrency: 1,
    dialect: "anthropic",
    latencyMs: 5,
    answerTokens: () => 30,
  });

  it("holds the slot until the stream ends and settles the final message's usage", async () => {
    const anthropic = anthropicClient(sim().server);
    const limiter = new Limiter({ itpm: 40_000, otpm: 8_000, concurrency: 1, provider: "anthropic" });
    const prompt = { messages: [{ role: "user" as const, content: "Stream me thirty words." }] };
    const maxTokens = 2_000;
    const streamOnce = (): Promise<Streamed<{ input: number; output: number }>> =>
      streamThrough(limiter, splitEstimate(prompt, maxTokens), "otpm", async (reservation, onEvent) => {
        const stream = anthropic.messages.stream(
          { model: "claude-sim", max_tokens: maxTokens, ...prompt },
          { signal: reservation.signal },
        );
        const { response } = await stream.withResponse();
        reservation.sync(response.headers);
        for await (const _event of stream) onEvent();
        const { usage } = await stream.finalMessage();
        return { input: usage.input_tokens, output: usage.output_tokens };
      });

    const streamed = await Promise.all([streamOnce(), streamOnce()]);

    expectOneSlotHeldPerStream(streamed, limiter, sim());
    for (const s of streamed) expectRefunded(s, maxTokens - s.used.output, 8_000);
  });
});
