import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { createProvider } from "../../src/testing/index.js";
import type { Dialect, ProviderServer, SimulatedProvider } from "../../src/testing/index.js";
import { anthropicClient, openAIClient, spend } from "../integration/helpers.js";
import { onVirtualNetworkTime } from "../integration/virtual-network-time.js";
import { recording, type Recorded } from "./recording.js";

/** An admission and the virtual time it was made at. */
type Timed = Recorded & { at: number };

/**
 * Runs `call` through a limited fetch on virtual time, after another client drained the key's
 * tokens: the SDK's first attempt draws a 429 and its own retry (`maxRetries: 2`) a 200.
 */
function afterDrain(
  dialect: Dialect,
  call: (fetch: typeof globalThis.fetch, server: ProviderServer) => Promise<unknown>,
): Promise<{ calls: Timed[]; provider: SimulatedProvider; retryAfterMs: number | undefined }> {
  const realFetch = globalThis.fetch;
  let fetching = 0;
  let sent = 0;
  return onVirtualNetworkTime(() => {
    const limits = dialect === "anthropic" ? { itpm: 40_000, otpm: 60_000 } : { tpm: 60_000 };
    const provider = createProvider({
      ...limits,
      dialect,
      answerTokens: () => 10,
      arrivalDelayMs: () => ((sent += 1), 0),
    });
    const limiter = new Limiter({ ...limits, provider: dialect, initial: "full" });
    const { admitter, calls } = recording(limiter);
    const timed: Timed[] = [];
    const base: typeof globalThis.fetch = async (input, init) => {
      fetching += 1;
      try {
        const response = await realFetch(input, init);
        const { status, statusText, headers } = response;
        return new Response(await response.arrayBuffer(), { status, statusText, headers });
      } finally {
        fetching -= 1;
      }
    };
    const fetch = limitedFetch(
      () => ({
        acquire: async (estimate, options) => {
          const reservation = await admitter.acquire(estimate, options);
          timed.push(Object.assign(calls.at(-1)!, { at: performance.now() }));
          return reservation;
        },
      }),
      { fetch: base },
    );
    const done = (async () => {
      const server = await provider.listen();
      try {
        await spend(provider, 60_000);
        await call(fetch, server);
        const rejected = provider.stats().calls.find((c) => c.status === 429);
        return { calls: timed, provider, retryAfterMs: rejected?.retryAfterMs };
      } finally {
        await server.close();
      }
    })();
    return {
      done,
      onTheWire: () => {
        const { served, rejected } = provider.stats();
        return fetching - (sent - served - rejected);
      },
    };
  });
}

function expectEachAttemptAdmitted({ calls, provider, retryAfterMs }: Awaited<ReturnType<typeof afterDrain>>): void {
  expect(
    provider
      .stats()
      .calls.slice(1)
      .map((c) => c.status),
  ).toEqual([429, 200]);
  // The 429 synced at its headers, then again with its body.
  expect(calls.map((c) => c.synced)).toEqual([[429, 429], [200]]);
  expect(calls.map((c) => c.released)).toEqual([true, true]);
  expect(calls[0]?.settled).toEqual([]);
  expect(calls[1]?.settled).toHaveLength(1);
  // The retry was admitted no sooner than the 429's hint said.
  expect(retryAfterMs).toBeGreaterThan(0);
  expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(retryAfterMs!);
}

describe("an SDK's own retry through limiter.fetch()", () => {
  it("OpenAI: each attempt is admitted, its headers synced, the 429 first", async () => {
    const outcome = await afterDrain("openai", (fetch, server) =>
      openAIClient(server, { fetch, maxRetries: 2 }).chat.completions.create({
        model: "gpt-sim",
        messages: [{ role: "user", content: "Retry quietly, please." }],
        max_tokens: 2_000,
      }),
    );
    expectEachAttemptAdmitted(outcome);
  });

  it("OpenAI Responses API: each attempt is admitted, its headers synced, the 429 first", async () => {
    const outcome = await afterDrain("openai", (fetch, server) =>
      openAIClient(server, { fetch, maxRetries: 2 }).responses.create({
        model: "gpt-sim",
        input: "Retry quietly, please.",
        max_output_tokens: 2_000,
      }),
    );
    expectEachAttemptAdmitted(outcome);
    expect(outcome.calls[1]?.settled).toEqual([{ input: outcome.provider.stats().calls.at(-1)!.prompt, output: 10 }]);
  });

  it("OpenAI Responses API stream: each attempt is admitted, the retry settled on response.completed", async () => {
    const outcome = await afterDrain("openai", async (fetch, server) => {
      const stream = await openAIClient(server, { fetch, maxRetries: 2 }).responses.create({
        model: "gpt-sim",
        input: "Retry quietly, please.",
        max_output_tokens: 2_000,
        stream: true,
      });
      for await (const _event of stream);
    });
    expectEachAttemptAdmitted(outcome);
    expect(outcome.calls[1]?.settled).toEqual([{ input: outcome.provider.stats().calls.at(-1)!.prompt, output: 10 }]);
  });

  it("OpenAI embeddings: each attempt is admitted, its headers synced, the 429 first", async () => {
    const outcome = await afterDrain("openai", (fetch, server) =>
      openAIClient(server, { fetch, maxRetries: 2 }).embeddings.create({
        model: "text-embedding-sim",
        input: "Retry quietly, please.",
      }),
    );
    expectEachAttemptAdmitted(outcome);
    expect(outcome.calls[1]?.settled).toEqual([{ input: outcome.provider.stats().calls.at(-1)!.prompt, output: 0 }]);
  });

  it("Anthropic: each attempt is admitted, its headers synced, the 429 first", async () => {
    const outcome = await afterDrain("anthropic", (fetch, server) =>
      anthropicClient(server, { fetch, maxRetries: 2 }).messages.create({
        model: "claude-sim",
        messages: [{ role: "user", content: "Retry quietly, please." }],
        max_tokens: 2_000,
      }),
    );
    expectEachAttemptAdmitted(outcome);
  });
});
