import * as anthropic from "@anthropic-ai/sdk";
import * as openai from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { latencyMs } from "../../examples/demo/workload.js";
import * as llmLimiter from "../../src/index.js";
import { between, createProvider, seededRandom } from "../../src/testing/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import type { Dialect } from "../../src/testing/index.js";
import { compileQuickStart, quickStartSource } from "./quick-start-snippet.js";
import { onVirtualNetworkTime } from "./virtual-network-time.js";

// The README's quick starts for OpenAI and Anthropic (through `limiter.fetch()`) and its manual
// form, taken from README.md when the test runs (so the docs cannot drift), run as printed with the
// README's limits: the real SDK, configured by its environment variables, over HTTP against the
// simulator enforcing those limits, with a burst of 1.5 times the RPM. On real time the burst's
// tail alone would take half a minute, so it runs on virtual time: the loopback HTTP takes none,
// and the simulator draws the delays a network adds, within the limiter's default arrival delay of
// 500 ms. The calls the burst sends at once open connections (TCP, TLS, a proxy) and reach the
// provider 400 ms late; later ones ride open connections and arrive 0–50 ms late, overtaking the
// burst's stragglers.
const OPENING_DELAY_MS = 400;
const OPEN_JITTER_MS = 50;

/** What running one provider's quick start takes: its SDK, how it is pointed at the simulator, its free names. */
interface Provider {
  readonly heading: string;
  readonly modules: Readonly<Record<string, unknown>>;
  readonly dialect: Dialect;
  env(url: string): Record<string, string>;
  /** Values for the names the snippet declares, for one prompt. */
  free(messages: { role: "user"; content: string }[], promptTokens: number): Record<string, unknown>;
}

const PROVIDERS: readonly Provider[] = [
  {
    heading: "OpenAI",
    modules: { openai, "llm-limiter": llmLimiter },
    dialect: "openai",
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "test-key" }),
    free: (messages, promptTokens) => ({ messages, promptTokens }),
  },
  {
    heading: "Anthropic",
    modules: { "@anthropic-ai/sdk": anthropic, "llm-limiter": llmLimiter },
    dialect: "anthropic",
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "test-key" }),
    free: (messages, inputTokens) => ({ messages, inputTokens }),
  },
  {
    heading: "The manual form: `run`",
    modules: { openai, "llm-limiter": llmLimiter },
    dialect: "openai",
    env: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "test-key" }),
    free: (messages, promptTokens) => ({ messages, promptTokens }),
  },
];

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe.each(PROVIDERS)("the README's $heading quick start, as printed", (provider) => {
  const quickStart = compileQuickStart(quickStartSource(provider.heading));
  const { rpm, ...tokens } = quickStart.limits;

  it(`draws no 429 on a burst of 1.5 x its RPM (${JSON.stringify(quickStart.limits)})`, async () => {
    if (rpm === undefined) throw new Error("the quick start no longer configures rpm");
    const random = seededRandom(9);
    const realFetch = globalThis.fetch;
    const messages = [{ role: "user" as const, content: "Summarise the design notes in three sentences." }];
    const promptTokens = estimatePromptTokens({ messages });
    const burst = Math.round(1.5 * rpm);
    let sent = 0;
    let fetching = 0;
    let burstAt = Number.NaN;
    const sim = await onVirtualNetworkTime(() => {
      const simulator = createProvider({
        rpm,
        ...tokens,
        dialect: provider.dialect,
        latencyMs,
        arrivalDelayMs: () => {
          sent += 1;
          return performance.now() === burstAt ? OPENING_DELAY_MS : between(random, 0, OPEN_JITTER_MS);
        },
      });
      // Counts requests on their way; buffers each body, so the SDK reads no more from the socket.
      vi.stubGlobal("fetch", async (...request: Parameters<typeof fetch>) => {
        fetching += 1;
        try {
          const response = await realFetch(...request);
          const { status, statusText, headers } = response;
          return new Response(await response.arrayBuffer(), { status, statusText, headers });
        } finally {
          fetching -= 1;
        }
      });
      const done = (async () => {
        const server = await simulator.listen();
        try {
          for (const [name, value] of Object.entries(provider.env(server.url))) vi.stubEnv(name, value);
          const { call } = quickStart.start(provider.modules);
          const free = provider.free(messages, promptTokens);
          burstAt = performance.now();
          await Promise.all(Array.from({ length: burst }, () => call(free)));
          return simulator;
        } finally {
          await server.close();
        }
      })();
      return {
        done,
        onTheWire() {
          const { served, rejected } = simulator.stats();
          // Requests held at the server for their arrival delay or latency are not on the wire.
          return fetching - (sent - served - rejected);
        },
      };
    });
    expect(sim.stats()).toMatchObject({ served: burst, rejected: 0 });
  });
});
