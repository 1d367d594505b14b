import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { Limiter } from "../../src/index.js";
import type { Estimate, Reservation, RunResult } from "../../src/index.js";
import { anthropicClient, openAIClient, spend, splitEstimate, tokensEstimate, useSimulator } from "./helpers.js";
import type { Simulator } from "./helpers.js";

// 2_000 tokens refill in 2 s at 60_000/min: the hint, and the time a slow
// machine has to reach the server before the drained key has room again.
const MAX_TOKENS = 2_000;

/** What the scenario saw; times are `performance.now()`, the limiter's clock. */
interface Outcome {
  errors: unknown[];
  rejectedAt: number;
  attemptStarts: number[];
  /** The level of the exhausted dimension while the retry waits. */
  levelWhileWaiting: number;
  secondStartedAt: number;
}

/**
 * Another client has taken the key's whole token budget, so the first call
 * (SDK `maxRetries: 0`) draws a 429 that `run` syncs and retries; a second
 * call is started while the limiter waits out the hint.
 */
async function rejectedThenRetried(
  { provider }: Simulator,
  limiter: Limiter,
  exhausted: string,
  estimate: (maxTokens: number) => Estimate,
  call: (reservation: Reservation, maxTokens: number) => Promise<RunResult<unknown>>,
): Promise<Outcome> {
  const outcome: Outcome = { errors: [], rejectedAt: 0, attemptStarts: [], levelWhileWaiting: NaN, secondStartedAt: 0 };
  await spend(provider, 60_000);
  const first = limiter.run(
    estimate(MAX_TOKENS),
    async (reservation) => {
      outcome.attemptStarts.push(performance.now());
      try {
        return await call(reservation, MAX_TOKENS);
      } catch (error) {
        outcome.errors.push(error);
        outcome.rejectedAt = performance.now();
        throw error;
      }
    },
    { retry: { attempts: 3 } },
  );
  // run() syncs the 429 before it queues the retry: start the second call while the retry waits.
  await vi.waitFor(() => expect(limiter.snapshot().queued).toBe(1), { timeout: 10_000, interval: 5 });
  outcome.levelWhileWaiting = limiter.snapshot().dimensions[exhausted]?.available ?? NaN;
  const second = limiter.run(estimate(16), (reservation) => {
    outcome.secondStartedAt = performance.now();
    return call(reservation, 16);
  });
  await Promise.all([first, second]);
  return outcome;
}

/** The assertions both SDKs share: one 429, waited out, and no call sent into another. */
function expectWaitedOut(outcome: Outcome, sim: Simulator): void {
  expect(outcome.errors).toHaveLength(1);
  expect(outcome.attemptStarts).toHaveLength(2);
  const { headers } = outcome.errors[0] as { headers: Headers };
  const hintMs = Number(headers.get("retry-after-ms"));
  expect(hintMs).toBeGreaterThan(0);
  // Synced: the limiter itself no longer thinks the retry fits (it started out full).
  expect(outcome.levelWhileWaiting).toBeLessThan(MAX_TOKENS);
  expect(outcome.attemptStarts[1]).toBeGreaterThanOrEqual(outcome.rejectedAt + hintMs);
  // Not admitted during the pause, and behind the retry, which kept its place at the head.
  expect(outcome.secondStartedAt).toBeGreaterThanOrEqual(outcome.rejectedAt + hintMs);
  expect(outcome.secondStartedAt).toBeGreaterThanOrEqual(outcome.attemptStarts[1] ?? Infinity);
  const stats = sim.provider.stats();
  expect(stats.rejected).toBe(1);
  expect(stats.served).toBe(3); // the other client's, the retry, the second call
}

describe("a 429 thrown by the OpenAI SDK", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("is synced by run(), which pauses admission for its hint and retries until the call succeeds", async () => {
    const openai = openAIClient(sim().server);
    const limiter = new Limiter({ tpm: 60_000, provider: "openai" });
    const messages = [{ role: "user" as const, content: "Try again later?" }];
    const outcome = await rejectedThenRetried(
      sim(),
      limiter,
      "tpm",
      (maxTokens) => tokensEstimate({ messages }, maxTokens),
      async (reservation, maxTokens) => {
        const { data, response } = await openai.chat.completions
          .create({ model: "gpt-sim", messages, max_tokens: maxTokens }, { signal: reservation.signal })
          .withResponse();
        reservation.sync(response.headers);
        return { value: data, used: data.usage?.total_tokens };
      },
    );

    const error = outcome.errors[0];
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, error: { type: "tokens", code: "rate_limit_exceeded" } });
    expectWaitedOut(outcome, sim());
  });
});

describe("a 429 thrown by the Anthropic SDK", () => {
  const sim = useSimulator({ itpm: 40_000, otpm: 60_000, dialect: "anthropic", latencyMs: 2, answerTokens: () => 10 });

  it("is synced by run(), which pauses admission for its hint and retries until the call succeeds", async () => {
    const anthropic = anthropicClient(sim().server);
    const limiter = new Limiter({ itpm: 40_000, otpm: 60_000, provider: "anthropic" });
    const prompt = { messages: [{ role: "user" as const, content: "Try again later?" }] };
    const outcome = await rejectedThenRetried(
      sim(),
      limiter,
      "otpm",
      (maxTokens) => splitEstimate(prompt, maxTokens),
      async (reservation, maxTokens) => {
        const { data, response } = await anthropic.messages
          .create({ model: "claude-sim", max_tokens: maxTokens, ...prompt }, { signal: reservation.signal })
          .withResponse();
        reservation.sync(response.headers);
        return { value: data, used: { input: data.usage.input_tokens, output: data.usage.output_tokens } };
      },
    );

    const error = outcome.errors[0];
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    // Anthropic's SDK keeps the whole body in `.error`, OpenAI's only the inner object.
    expect(error).toMatchObject({ status: 429, error: { type: "error", error: { type: "rate_limit_error" } } });
    expectWaitedOut(outcome, sim());
  });
});
