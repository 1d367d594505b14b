import { getEventListeners } from "node:events";
import { generateText, streamText } from "ai";
import { describe, expect, it, vi } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { Limiter } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import type { AnswerInput } from "../../src/testing/options.js";
import { useSimulator } from "../integration/helpers.js";
import { onVirtualNetworkTime } from "../integration/virtual-network-time.js";
import { anthropicMessages, openAIChat, recording, userMessage, watchedFetch } from "./helpers.js";

describe("a call waiting in the limiter's queue", () => {
  const sim = useSimulator({ tpm: 100_000, answerTokens: () => 20 });

  it.each([0, 2])(
    "leaves at once when its abortSignal aborts (maxRetries %i), and leaks nothing",
    async (maxRetries) => {
      const limiter = new Limiter({ tpm: 100_000, concurrency: 1, provider: "openai" });
      const model = openAIChat(sim().server, rateLimitMiddleware(limiter));
      const servedBefore = sim().provider.stats().served;
      // The one slot, held by a stream nobody reads yet.
      const { stream } = await model.doStream({ prompt: [userMessage("Hold the slot.")], maxOutputTokens: 100 });

      const controller = new AbortController();
      const reason = new DOMException("The user left", "AbortError");
      const queued = generateText({ model, prompt: "Waiting", maxRetries, abortSignal: controller.signal });
      await vi.waitFor(() => expect(limiter.snapshot().queued).toBe(1), { interval: 1 });
      controller.abort(reason);

      await expect(queued).rejects.toBe(reason);
      expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 1 });
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      await stream.cancel();
      expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0, concurrency: { available: 1 } });
      // The aborted call never reached the provider.
      expect(sim().provider.stats().served).toBe(servedBefore + 1);
    },
  );
});

// Forty calls at once, streamed and not, through a budget their reservations overrun several times over: admission
// waits for settles and refill. The AI SDK's retries stay on, so any 429 would be hidden from the callers but
// counted by the simulator.
const CALLERS = 40;
const MAX_OUTPUT_TOKENS = 600;
const answerTokens = ({ index }: AnswerInput): number => 150 + ((index * 37) % 200);
const question = (i: number): string => `Question ${i}: ${"why does the bucket refill? ".repeat(1 + (i % 4))}`;

describe.each([
  { name: "OpenAI chat", dialect: "openai", quota: { rpm: 600, tpm: 8_000 }, tight: 8_000, model: openAIChat },
  {
    name: "Anthropic messages",
    dialect: "anthropic",
    quota: { rpm: 600, itpm: 20_000, otpm: 6_000 },
    tight: 6_000,
    model: anthropicMessages,
  },
] as const)("$name: many concurrent calls through a tight limit", ({ dialect, quota, tight, model: modelOf }) => {
  it("all complete, and the simulator rejects none", async () => {
    const { stats, admissions } = await onVirtualNetworkTime(() => {
      const wire = watchedFetch();
      // Streams take 200 ms of virtual time; other answers come at once, so a request awaiting its response is on
      // the wire (and virtual time waits for it) only while it travels the loopback.
      const provider = createProvider({ ...quota, dialect, latencyMs: (c) => (c.stream ? 200 : 0), answerTokens });
      const done = (async () => {
        const server = await provider.listen();
        try {
          const { limiter, admissions } = recording(new Limiter({ ...quota, provider: dialect }));
          const model = modelOf(server, rateLimitMiddleware(limiter), wire.fetch);
          await Promise.all(
            Array.from({ length: CALLERS }, async (_, i) => {
              const options = { model, prompt: question(i), maxOutputTokens: MAX_OUTPUT_TOKENS };
              if (i % 2 === 0) return (await generateText(options)).text;
              let text = "";
              for await (const delta of streamText(options).textStream) text += delta;
              return text;
            }),
          );
          return { stats: provider.stats(), admissions };
        } finally {
          await server.close();
        }
      })();
      return { done, onTheWire: wire.onTheWire };
    });

    // What was reserved at admission overran the tight budget several times over.
    expect(stats.tokensCharged).toBeGreaterThan(2 * tight);
    expect(stats).toMatchObject({ rejected: 0, served: CALLERS });
    expect(admissions).toHaveLength(CALLERS);
    expect(admissions.every((a) => a.reservation.released && a.settled.length === 1)).toBe(true);
  });
});
