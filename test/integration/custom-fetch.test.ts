import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import type { Estimate } from "../../src/index.js";
import {
  anthropicClient,
  openAIClient,
  spend,
  splitEstimate,
  syncingFetch,
  tokensEstimate,
  useSimulator,
} from "./helpers.js";
import type { Simulator } from "./helpers.js";

// 2_000 tokens take 2 s to refill at 60_000/min: time enough, even on a slow
// machine, for the first attempt to find the drained key still empty.
const MAX_TOKENS = 2_000;

/** One attempt as the wrapper `fetch` saw it, right after the limiter synced it. */
interface Attempt {
  status: number;
  /** Whether the limiter would admit a small call at that moment. */
  admitsSmallCall: boolean;
}

/** Records every attempt, and probes the limiter once it has seen the attempt's headers. */
function recordAttempts(limiter: Limiter, small: Estimate): { attempts: Attempt[]; fetch: typeof fetch } {
  const attempts: Attempt[] = [];
  const fetch = syncingFetch(limiter, (status) => {
    const probe = limiter.tryAcquire(small);
    attempts.push({ status, admitsSmallCall: probe !== undefined });
    probe?.refund();
    probe?.release();
  });
  return { attempts, fetch };
}

/**
 * The SDK retried a 429 on its own (`maxRetries: 2`), so user code saw only the
 * success; the limiter saw both attempts, in the order the simulator served them,
 * and held back other calls while the SDK waited.
 */
function expectAbsorbed429Seen(attempts: readonly Attempt[], { provider }: Simulator): void {
  expect(attempts.map((a) => a.status)).toEqual([429, 200]);
  expect(attempts[0]?.admitsSmallCall).toBe(false);
  const httpCalls = provider.stats().calls.slice(1); // after the other client's
  expect(httpCalls.map((c) => c.status)).toEqual(attempts.map((a) => a.status));
}

describe("a custom fetch on the OpenAI client", () => {
  const sim = useSimulator({ tpm: 60_000, latencyMs: 2, answerTokens: () => 10 });

  it("shows the limiter the 429s the SDK retries itself", async () => {
    const { provider, server } = sim();
    const limiter = new Limiter({ tpm: 60_000, provider: "openai" });
    const messages = [{ role: "user" as const, content: "Retry quietly, please." }];
    const { attempts, fetch } = recordAttempts(limiter, tokensEstimate({ messages }, 16));
    const openai = openAIClient(server, { maxRetries: 2, fetch });
    await spend(provider, 60_000);

    const answer = await limiter.run(tokensEstimate({ messages }, MAX_TOKENS), async (reservation) => {
      const data = await openai.chat.completions.create(
        { model: "gpt-sim", messages, max_tokens: MAX_TOKENS },
        { signal: reservation.signal },
      );
      return { value: data, used: data.usage?.total_tokens };
    });

    expect(answer.choices[0]?.finish_reason).toBe("stop");
    expectAbsorbed429Seen(attempts, sim());
  });
});

describe("a custom fetch on the Anthropic client", () => {
  const sim = useSimulator({ itpm: 40_000, otpm: 60_000, dialect: "anthropic", latencyMs: 2, answerTokens: () => 10 });

  it("shows the limiter the 429s the SDK retries itself", async () => {
    const { provider, server } = sim();
    const limiter = new Limiter({ itpm: 40_000, otpm: 60_000, provider: "anthropic" });
    const prompt = { messages: [{ role: "user" as const, content: "Retry quietly, please." }] };
    const { attempts, fetch } = recordAttempts(limiter, splitEstimate(prompt, 16));
    const anthropic = anthropicClient(server, { maxRetries: 2, fetch });
    await spend(provider, 60_000);

    const answer = await limiter.run(splitEstimate(prompt, MAX_TOKENS), async (reservation) => {
      const data = await anthropic.messages.create(
        { model: "claude-sim", max_tokens: MAX_TOKENS, ...prompt },
        { signal: reservation.signal },
      );
      return { value: data, used: { input: data.usage.input_tokens, output: data.usage.output_tokens } };
    });

    expect(answer.stop_reason).toBe("end_turn");
    expectAbsorbed429Seen(attempts, sim());
  });
});
