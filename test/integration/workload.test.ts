import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import type { AnswerInput } from "../../src/testing/options.js";
import { anthropicClient, openAIClient, splitEstimate, tokensEstimate, useSimulator } from "./helpers.js";

// Forty callers at once against four slots and a token budget that the forty
// reservations (prompt + max_tokens each) overrun by a fifth: admission must
// wait for slots and for reconciliation, and near the end for refill. The
// answers use most of a bucket, so it stays short on real time.
const CALLERS = 40;
const MAX_TOKENS = 1_800;
const answerTokens = ({ index }: AnswerInput): number => 1_150 + ((index * 97) % 400);

/** Prompts of a few sizes, so the estimates differ. */
const question = (i: number): string =>
  `Question ${i}: ${"why does the bucket refill continuously? ".repeat(1 + (i % 5))}`;

describe("a workload through run() on the OpenAI dialect, limiter told the true quota", () => {
  const quota = { rpm: 600, tpm: 60_000, concurrency: 4 };
  const sim = useSimulator({ ...quota, latencyMs: 5, answerTokens });

  it("completes every call without a single 429", async () => {
    const { provider, server } = sim();
    const openai = openAIClient(server);
    const limiter = new Limiter({ ...quota, provider: "openai" });

    const answers = await Promise.all(
      Array.from({ length: CALLERS }, (_, i) => {
        const messages = [{ role: "user" as const, content: question(i) }];
        return limiter.run(tokensEstimate({ messages }, MAX_TOKENS), async (reservation) => {
          const { data, response } = await openai.chat.completions
            .create({ model: "gpt-sim", messages, max_tokens: MAX_TOKENS }, { signal: reservation.signal })
            .withResponse();
          reservation.sync(response.headers);
          return { value: data, used: data.usage?.total_tokens };
        });
      }),
    );

    expect(answers.every((a) => a.choices[0]?.finish_reason === "stop")).toBe(true);
    const stats = provider.stats();
    expect(stats.tokensCharged).toBeGreaterThan(quota.tpm); // the reservations overran the bucket
    expect(stats).toMatchObject({ rejected: 0, served: CALLERS });
    expect(stats.maxInFlight).toBeLessThanOrEqual(quota.concurrency);
  });
});

describe("a workload through run() on the Anthropic dialect with { input, output } estimates", () => {
  const quota = { rpm: 600, itpm: 40_000, otpm: 60_000, concurrency: 4 };
  const sim = useSimulator({ ...quota, dialect: "anthropic", latencyMs: 5, answerTokens });
  // ~400 input tokens a call: ITPM is drawn on too, if not the binding budget.
  const system = "You answer questions about token buckets. ".repeat(38);

  it("completes every call without a single 429", async () => {
    const { provider, server } = sim();
    const anthropic = anthropicClient(server);
    const limiter = new Limiter({ ...quota, provider: "anthropic" });

    const answers = await Promise.all(
      Array.from({ length: CALLERS }, (_, i) => {
        const prompt = { system, messages: [{ role: "user" as const, content: question(i) }] };
        return limiter.run(splitEstimate(prompt, MAX_TOKENS), async (reservation) => {
          const { data, response } = await anthropic.messages
            .create({ model: "claude-sim", max_tokens: MAX_TOKENS, ...prompt }, { signal: reservation.signal })
            .withResponse();
          reservation.sync(response.headers);
          return { value: data, used: { input: data.usage.input_tokens, output: data.usage.output_tokens } };
        });
      }),
    );

    expect(answers.every((a) => a.stop_reason === "end_turn")).toBe(true);
    const stats = provider.stats();
    const reserved = stats.calls.reduce((sum, call) => sum + call.maxTokens, 0);
    expect(reserved).toBeGreaterThan(quota.otpm); // the output reservations overran the bucket
    expect(stats).toMatchObject({ rejected: 0, served: CALLERS });
    expect(stats.maxInFlight).toBeLessThanOrEqual(quota.concurrency);
  });
});
