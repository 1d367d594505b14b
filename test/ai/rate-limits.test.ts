import { APICallError, generateText, streamText } from "ai";
import type { LanguageModelMiddleware } from "ai";
import { describe, expect, it } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { Limiter } from "../../src/index.js";
import type { LimiterOptions } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import type { ProviderOptions, ProviderServer, SimulatedProvider } from "../../src/testing/index.js";
import { spend } from "../integration/helpers.js";
import { onVirtualNetworkTime } from "../integration/virtual-network-time.js";
import { anthropicMessages, openAIChat, recording, watchedFetch } from "./helpers.js";

/** One provider of the AI SDK against the simulator speaking its dialect. */
interface Api {
  readonly name: string;
  readonly dialect: ProviderOptions["dialect"];
  readonly quota: Pick<LimiterOptions, "tpm" | "itpm" | "otpm" | "rpm">;
  model(server: ProviderServer, middleware: LanguageModelMiddleware, fetch: typeof globalThis.fetch): ModelOf;
}
type ModelOf = ReturnType<typeof openAIChat>;

const APIS: readonly Api[] = [
  { name: "OpenAI chat", dialect: "openai", quota: { tpm: 60_000 }, model: openAIChat },
  { name: "Anthropic messages", dialect: "anthropic", quota: { itpm: 60_000, otpm: 60_000 }, model: anthropicMessages },
];

/** How a test calls the model: `generateText`, or `streamText` read to its end. Rejects with the call's error. */
type Call = (model: ModelOf, options: { maxRetries: number; abortSignal?: AbortSignal }) => Promise<string>;

const prompt = "Why does the bucket refill continuously?";
const CALLS: Readonly<Record<"generateText" | "streamText", Call>> = {
  generateText: async (model, options) =>
    (await generateText({ model, prompt, maxOutputTokens: 200, ...options })).text,
  streamText: async (model, options) => {
    let failure: unknown;
    const result = streamText({
      model,
      prompt,
      maxOutputTokens: 200,
      ...options,
      onError: ({ error }) => void (failure = error),
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    if (failure !== undefined) throw failure;
    return text;
  },
};

/** Runs `scenario` on virtual time against a fresh simulator over HTTP; the `fetch` given counts requests. */
function onSimulator<T>(
  options: ProviderOptions,
  scenario: (sim: { provider: SimulatedProvider; server: ProviderServer; fetch: typeof fetch }) => Promise<T>,
): Promise<T> {
  const wire = watchedFetch();
  return onVirtualNetworkTime(() => {
    const provider = createProvider(options);
    const done = (async () => {
      const server = await provider.listen();
      try {
        return await scenario({ provider, server, fetch: wire.fetch });
      } finally {
        await server.close();
      }
    })();
    return { done, onTheWire: wire.onTheWire };
  });
}

describe.each(APIS)("a 429 from the simulator, $name", (api) => {
  describe.each(Object.entries(CALLS))("through %s", (_, call) => {
    it("with the AI SDK's retries off: fails with the 429, whose headers pause the limiter", async () => {
      const outcome = await onSimulator({ ...api.quota, dialect: api.dialect }, async ({ provider, server, fetch }) => {
        await spend(provider, 60_000); // another client on the key took it all
        const limiter = new Limiter({ ...api.quota, provider: api.dialect, initial: "full" });
        const model = api.model(server, rateLimitMiddleware(limiter), fetch);
        const error = await call(model, { maxRetries: 0 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        return { error, admitted: limiter.tryAcquire({ input: 1, output: 1 }), stats: provider.stats() };
      });

      expect(APICallError.isInstance(outcome.error)).toBe(true);
      expect(outcome.error).toMatchObject({ statusCode: 429 });
      // Synced: the limiter, which started full, admits nothing until the hint has passed.
      expect(outcome.admitted).toBeUndefined();
      expect(outcome.stats).toMatchObject({ rejected: 1, served: 1 });
    });

    it("with the AI SDK's retries on: each attempt is admitted, the retry only after the hint", async () => {
      const outcome = await onSimulator({ ...api.quota, dialect: api.dialect }, async ({ provider, server, fetch }) => {
        await spend(provider, 60_000);
        const { limiter, admissions } = recording(
          new Limiter({ ...api.quota, provider: api.dialect, initial: "full" }),
        );
        const model = api.model(server, rateLimitMiddleware(limiter), fetch);
        const text = await call(model, { maxRetries: 2 });
        return { text, admissions, stats: provider.stats() };
      });

      expect(outcome.text.length).toBeGreaterThan(0);
      const [rejected, served] = outcome.stats.calls.slice(1);
      expect(outcome.stats).toMatchObject({ rejected: 1, served: 2 });
      expect(outcome.admissions).toHaveLength(2);
      expect(outcome.admissions.map((a) => a.reservation.released)).toEqual([true, true]);
      // The rejected attempt's estimate stands; the retry settles what the simulator reports.
      expect(outcome.admissions[0]?.settled).toEqual([]);
      expect(outcome.admissions[1]?.settled).toEqual([{ input: served?.prompt, output: served?.actual }]);
      expect(served?.sentAt).toBeGreaterThanOrEqual((rejected?.receivedAt ?? Infinity) + (rejected?.retryAfterMs ?? 0));
    });
  });
});
