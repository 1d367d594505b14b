import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { streamText, wrapLanguageModel } from "ai";
import OpenAI from "openai";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { Limiter } from "../../src/index.js";
import { between, createProvider, seededRandom } from "../../src/testing/index.js";
import type { ProviderOptions } from "../../src/testing/index.js";
import { onVirtualNetworkTime } from "../../test/integration/virtual-network-time.js";
import { corpus } from "./corpus.js";

/** One adoption snippet of the README or docs/, run as a burst of prose prompts against the simulator. */
export interface Adoption {
  readonly name: string;
  /** The limits of the snippet's `new Limiter({...})`, which the simulator enforces too. */
  readonly limits: Pick<ProviderOptions, "rpm" | "tpm" | "itpm" | "otpm">;
  readonly dialect: "openai" | "anthropic";
  readonly calls: number;
  /** One call as the snippet makes it, its SDK pointed at `url` with `fetch` counting what is on the wire. */
  start(url: string, fetch: typeof globalThis.fetch): (prompt: string) => Promise<unknown>;
}

/** What a run drew: the simulator's 429s (the SDKs' retries hide them from the caller), and the makespan. */
export interface AdoptionRun {
  readonly name: string;
  readonly calls: number;
  readonly rejected: number;
  readonly served: number;
  readonly makespanS: number;
}

/** English prose from the corpus, cut into prompts of 1,410 and 4,500 characters in turn (the sizes). */
export function prosePrompts(count: number): string[] {
  const prose = corpus()
    .filter((t) => t.category === "English prose")
    .map((t) => t.text.replace(/\s+/g, " "))
    .join(" ");
  return Array.from({ length: count }, (_, i) => {
    const size = i % 2 === 0 ? 1_410 : 4_500;
    const at = (i * 977) % (prose.length - size);
    return prose.slice(at, at + size);
  });
}

/** The README's quick starts and the AI SDK page's snippet, as printed but for the prompt. */
export const ADOPTIONS: readonly Adoption[] = [
  {
    name: "README, OpenAI: `new OpenAI({ fetch: limiter.fetch() })`",
    limits: { rpm: 500, tpm: 200_000 },
    dialect: "openai",
    calls: 300,
    start(url, fetch) {
      const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
      const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: "sim", fetch: limiter.fetch({ fetch }) });
      return (prompt) =>
        openai.chat.completions.create({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: prompt }],
          max_tokens: 512,
        });
    },
  },
  {
    name: "README, Anthropic: `new Anthropic({ fetch: limiter.fetch() })`",
    limits: { rpm: 50, itpm: 30_000, otpm: 8_000 },
    dialect: "anthropic",
    calls: 150,
    start(url, fetch) {
      const limiter = new Limiter({ rpm: 50, itpm: 30_000, otpm: 8_000, provider: "anthropic" });
      const anthropic = new Anthropic({ baseURL: url, apiKey: "sim", fetch: limiter.fetch({ fetch }) });
      return (prompt) =>
        anthropic.messages.create({
          model: "claude-sonnet-4-6",
          max_tokens: 1024,
          messages: [{ role: "user", content: prompt }],
        });
    },
  },
  {
    name: "the manual form, `run` on `limiter.estimate(body)` (docs/estimates.md; proposed for the README)",
    limits: { rpm: 500, tpm: 200_000 },
    dialect: "openai",
    calls: 300,
    start(url, fetch) {
      const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: "sim", fetch, maxRetries: 0 });
      const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
      return (prompt) => {
        const body = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: prompt }], max_tokens: 512 };
        return limiter.run(
          limiter.estimate(body),
          async (reservation) => {
            const { data, response } = await openai.chat.completions
              .create(body, { signal: reservation.signal })
              .withResponse();
            reservation.sync(response.headers);
            const used = data.usage && { input: data.usage.prompt_tokens, output: data.usage.completion_tokens };
            return { value: data, used };
          },
          { retry: { attempts: 3 } },
        );
      };
    },
  },
  {
    name: "docs/ai-sdk.md: `streamText` through `rateLimitMiddleware(limiter)`",
    limits: { rpm: 500, tpm: 200_000 },
    dialect: "openai",
    calls: 300,
    start(url, fetch) {
      const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
      const model = wrapLanguageModel({
        model: createOpenAI({ baseURL: `${url}/v1`, apiKey: "sim", fetch }).chat("gpt-4o-mini"),
        middleware: rateLimitMiddleware(limiter),
      });
      return async (prompt) => {
        const result = streamText({ model, prompt, maxOutputTokens: 512 });
        await result.consumeStream();
        return result.usage;
      };
    },
  },
];

/** Answers of 100 to 400 tokens, seeded; latency as the demo's (300 ms + 15 ms a token). */
const answerTokens = ({ index }: { index: number }): number => 100 + ((index * 7919) % 301);
const latencyMs = ({ actual }: { actual: number }): number => 300 + 15 * actual;

/** Runs one adoption on virtual time: every call at once, network delays 0 to 50 ms. */
export async function runAdoption(adoption: Adoption): Promise<AdoptionRun> {
  const random = seededRandom(23);
  const prompts = prosePrompts(adoption.calls);
  let fetching = 0;
  let sent = 0;
  const counting: typeof globalThis.fetch = async (input, init) => {
    fetching += 1;
    try {
      const response = await globalThis.fetch(input, init);
      const { status, statusText, headers } = response;
      return new Response(await response.arrayBuffer(), { status, statusText, headers });
    } finally {
      fetching -= 1;
    }
  };
  let started = 0;
  const provider = await onVirtualNetworkTime(() => {
    const simulator = createProvider({
      ...adoption.limits,
      dialect: adoption.dialect,
      latencyMs,
      answerTokens,
      arrivalDelayMs: () => {
        sent += 1;
        return between(random, 0, 50);
      },
    });
    const done = (async () => {
      const server = await simulator.listen();
      try {
        const call = adoption.start(server.url, counting);
        started = performance.now();
        await Promise.all(prompts.map((prompt) => call(prompt)));
        return { simulator, makespanMs: performance.now() - started };
      } finally {
        await server.close();
      }
    })();
    return {
      done,
      onTheWire() {
        const { served, rejected } = simulator.stats();
        return fetching - (sent - served - rejected);
      },
    };
  });
  const { served, rejected } = provider.simulator.stats();
  return { name: adoption.name, calls: adoption.calls, rejected, served, makespanS: provider.makespanMs / 1000 };
}
