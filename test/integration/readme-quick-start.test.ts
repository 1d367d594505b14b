import * as openai from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { latencyMs } from "../../examples/demo/workload.js";
import * as llmLimiter from "../../src/index.js";
import { between, createProvider, estimatePromptTokens, seededRandom } from "../../src/testing/index.js";
import { compileQuickStart } from "./quick-start-snippet.js";
import { onVirtualNetworkTime } from "./virtual-network-time.js";

// The README's quick start, taken from README.md when the test runs (so the docs cannot
// drift), run as printed with the README's limits: the real `openai` SDK, configured by its
// environment variables, over HTTP against the simulator enforcing those limits, with a burst
// of 1.5 times the RPM. On real time the burst's tail alone would take half a minute, so it runs
// on virtual time: the loopback HTTP takes none, and the simulator draws the delays a network
// adds, within the limiter's default arrival delay of 500 ms. The calls the burst sends at once
// open connections (TCP, TLS, a proxy) and reach the provider 400 ms late; later ones ride open
// connections and arrive 0–50 ms late, overtaking the burst's stragglers.
const OPENING_DELAY_MS = 400;
const OPEN_JITTER_MS = 50;

const quickStart = compileQuickStart();

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe("the README's quick start, as printed", () => {
  const { rpm, tpm } = quickStart.limits;

  it(`draws no 429 on a burst of 1.5 x its RPM (${rpm} RPM, ${tpm} TPM)`, async () => {
    if (rpm === undefined || tpm === undefined) throw new Error("the quick start no longer configures rpm and tpm");
    const random = seededRandom(9);
    const realFetch = globalThis.fetch;
    const messages = [{ role: "user", content: "Summarise the design notes in three sentences." }];
    const promptTokens = estimatePromptTokens({ messages });
    const burst = Math.round(1.5 * rpm);
    let sent = 0;
    let fetching = 0;
    let burstAt = Number.NaN;
    const provider = await onVirtualNetworkTime(() => {
      const sim = createProvider({
        rpm,
        tpm,
        dialect: "openai",
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
        const server = await sim.listen();
        try {
          vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
          vi.stubEnv("OPENAI_API_KEY", "test-key");
          const { call } = quickStart.start({ openai, "llm-limiter": llmLimiter });
          burstAt = performance.now();
          await Promise.all(Array.from({ length: burst }, () => call(promptTokens, messages)));
          return sim;
        } finally {
          await server.close();
        }
      })();
      return {
        done,
        onTheWire() {
          const { served, rejected } = sim.stats();
          // Requests held at the server for their arrival delay or latency are not on the wire.
          return fetching - (sent - served - rejected);
        },
      };
    });
    expect(provider.stats()).toMatchObject({ served: burst, rejected: 0 });
  });
});
