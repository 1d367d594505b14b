import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll } from "vitest";
import type { Limiter } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import type { ProviderOptions, ProviderServer, SimulatedProvider } from "../../src/testing/index.js";
import type { PromptParts } from "../../src/testing/prompt.js";

/** A simulated provider and its HTTP server, for the real SDK clients. */
export interface Simulator {
  readonly provider: SimulatedProvider;
  readonly server: ProviderServer;
}

/**
 * Starts a simulator in `beforeAll` and closes it in `afterAll` of the
 * enclosing `describe`; the returned getter is valid inside its tests.
 */
export function useSimulator(options: ProviderOptions): () => Simulator {
  let current: Simulator | undefined;
  beforeAll(async () => {
    const provider = createProvider(options);
    current = { provider, server: await provider.listen() };
  });
  afterAll(async () => {
    await current?.server.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error("the simulator runs only inside the tests of its describe block");
    return current;
  };
}

/** An OpenAI client on the simulator; the limiter owns retries unless a test says otherwise. */
export function openAIClient(
  server: ProviderServer,
  options: { maxRetries?: number; fetch?: typeof fetch } = {},
): OpenAI {
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "test-key", maxRetries: 0, ...options });
}

/** An Anthropic client on the simulator; the limiter owns retries unless a test says otherwise. */
export function anthropicClient(
  server: ProviderServer,
  options: { maxRetries?: number; fetch?: typeof fetch } = {},
): Anthropic {
  return new Anthropic({ baseURL: server.url, apiKey: "test-key", maxRetries: 0, ...options });
}

/** The most a bucket of `limit` per minute refills in `ms`. */
export const refill = (limit: number, ms: number): number => (ms * limit) / 60_000 + 1e-6;

/** What OpenAI charges TPM at admission: the prompt plus the output cap. */
export function tokensEstimate(prompt: PromptParts, maxTokens: number): number {
  return estimatePromptTokens(prompt) + maxTokens;
}

/** What Anthropic charges at admission: the prompt to ITPM, the output cap to OTPM. */
export function splitEstimate(prompt: PromptParts, maxTokens: number): { input: number; output: number } {
  return { input: estimatePromptTokens(prompt), output: maxTokens };
}

/**
 * Spends `tokens` of output (so of TPM and OTPM) in process, as another client
 * on the same key would, using all of it so nothing is refunded: the next call
 * over HTTP can draw a 429 whatever the limiter thinks.
 */
export async function spend(provider: SimulatedProvider, tokens: number): Promise<void> {
  const result = await provider.call({ prompt: 0, maxTokens: tokens, actual: tokens });
  if (result.status !== 200) throw new Error(`spending quota on the simulator was rejected with ${result.status}`);
}

/**
 * A `fetch` for an SDK client that shows every attempt's headers to the
 * limiter, including the 429s the SDK retries itself and never surfaces.
 */
export function syncingFetch(limiter: Limiter, onAttempt: (status: number) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    limiter.sync(response.headers, { status: response.status });
    onAttempt(response.status);
    return response;
  };
}
