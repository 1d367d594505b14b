// The workload of bench/redis-goodput.ts on virtual time, through provider.call(): 480 calls queued at once, 45,000
// TPM, headers stamped at completion, latency 0.3–1.3 s, each call reserving its prompt + 200 and using the prompt +
// 1–200. On real time the first burst (after the start-up probes) reaches the provider 0.8–1.2 s after admission (new
// connections, a busy event loop), later calls 0–400 ms: longer than the limiter's `arrivalDelayMs` (500) for the
// burst. A completion-stamped `remaining` is current but has not seen the draws still on their way, and the provider
// reconciles each call before stamping it, so the level a response sets must discount what is on its way, and a
// refund must not be taken for a draw that arrived long ago. Before both, each seed drew 1–3 429s.
import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import { between, createProvider, seededRandom } from "../src/testing/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();
const LIMITS = { rpm: 1_000, tpm: 45_000 };
const CALLS = 480;
const PROMPT_TOKENS = 96;
const MAX_TOKENS = 200;
/** Calls past the start-up probes that make up the first burst: 45,000 / 296 is about 152. */
const BURST = 160;

/** 429s the provider sends to one limiter (`arrivalDelayMs`: the limiter's option) over the whole workload. */
async function rejections(seed: number, arrivalDelayMs?: number): Promise<number> {
  const random = seededRandom(seed);
  const provider = createProvider({
    ...LIMITS,
    seed,
    latencyMs: (call) => 300 + 5 * call.actual,
    arrivalDelayMs: (call) => (call.index < BURST ? between(random, 800, 1_200) : between(random, 0, 400)),
  });
  const limiter = new Limiter({
    ...LIMITS,
    provider: "openai",
    ...(arrivalDelayMs !== undefined && { arrivalDelayMs }),
  });
  const answers = seededRandom(seed + 1_000);
  const done = Promise.all(
    Array.from({ length: CALLS }, () =>
      limiter.run(
        PROMPT_TOKENS + MAX_TOKENS,
        async (reservation) => {
          const actual = between(answers, 1, MAX_TOKENS);
          const result = await provider.call({ prompt: PROMPT_TOKENS, maxTokens: MAX_TOKENS, actual });
          if (result.status === 429) throw Object.assign(new Error("429"), { status: 429, headers: result.headers });
          reservation.sync(result.headers);
          return { value: undefined, used: result.usage.promptTokens + result.usage.completionTokens };
        },
        { retry: { attempts: 20 } },
      ),
    ),
  );
  // 94,000 tokens at 45,000 TPM past the first minute's burst: about 70 s.
  await time.timers.tickAsync(120_000);
  await done;
  await limiter.close();
  expect(provider.stats().served).toBe(CALLS);
  return provider.stats().rejected;
}

describe("a first burst that reaches the provider later than arrivalDelayMs", () => {
  it("draws no 429 when arrivalDelayMs covers the burst's delay", async () => {
    for (const seed of [1, 2, 3]) expect(await rejections(seed, 1_500)).toBe(0);
  });

  it("draws no 429 on the default arrivalDelayMs", async () => {
    for (const seed of [1, 2, 3]) expect(await rejections(seed)).toBe(0);
  });
});
