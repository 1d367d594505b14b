/**
 * Where the examples send their calls: to the real API when its key is set (OPENAI_API_KEY,
 * ANTHROPIC_API_KEY), else to the built-in simulator on a free local port, metering the same
 * budgets the example gives its limiter. Not part of the library: in your own project, point
 * the SDK at the provider as usual.
 */
import { createProvider, type ProviderOptions, type SimulatedProvider } from "../../src/testing/index.js";

/** The API an example calls. */
export type Api = "openai" | "anthropic";

/** An SDK's connection settings, and the simulator behind them when there is one. */
export interface Target {
  /** The SDK's `baseURL`: OpenAI's ends in `/v1`, Anthropic's does not. */
  readonly baseURL: string;
  readonly apiKey: string;
  /** A model of the API: a cheap one for the real provider, any name for the simulator. */
  readonly model: string;
  /** The simulator, when no key is set; `undefined` against the real API. */
  readonly simulator: SimulatedProvider | undefined;
  /** Stops the simulator, prints what it saw, and fails the process on any 429 it sent. */
  close(): Promise<void>;
}

const REAL: Readonly<Record<Api, { key: string; baseURL: string; model: string }>> = {
  openai: { key: "OPENAI_API_KEY", baseURL: "https://api.openai.com/v1", model: "gpt-4o-mini" },
  anthropic: { key: "ANTHROPIC_API_KEY", baseURL: "https://api.anthropic.com", model: "claude-haiku-4-5" },
};

/**
 * The target of `api`. `simulated` configures the simulator (its `dialect` is `api`); give it
 * the limiter's budgets, so a limiter that overshoots draws 429s here as it would for real.
 */
export async function connect(api: Api, simulated: Omit<ProviderOptions, "dialect"> = {}): Promise<Target> {
  const real = REAL[api];
  const apiKey = process.env[real.key];
  if (apiKey) {
    console.log(`Calling the real ${api} API (${real.key} is set).`);
    return { baseURL: real.baseURL, apiKey, model: real.model, simulator: undefined, close: async () => {} };
  }
  const simulator = createProvider({ ...simulated, dialect: api });
  const server = await simulator.listen();
  console.log(`Calling the simulator at ${server.url} (set ${real.key} to call the real ${api} API).`);
  return {
    baseURL: api === "openai" ? `${server.url}/v1` : server.url,
    apiKey: "simulated",
    model: `simulated-${api}-model`,
    simulator,
    async close() {
      await server.close();
      const { served, rejected } = simulator.stats();
      console.log(`Simulator: calls served ${served}, answered 429 ${rejected}.`);
      if (rejected > 0) process.exitCode = 1;
    },
  };
}
