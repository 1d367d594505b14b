/**
 * prom-client metrics from a limiter's events and snapshot, against the simulator: 40 calls
 * that reserve `max_tokens` 1,024 and use about 300, then the metrics as Prometheus would scrape
 * them. `npx tsx examples/prometheus.ts`. In a service, serve `registry.metrics()` on `/metrics`.
 */
import { Registry } from "prom-client";
import { Limiter } from "../src/index.js";
import { createProvider } from "../src/testing/index.js";
import { exposeLimiter } from "./prometheus/metrics.js";

const MAX_TOKENS = 1_024;

const provider = createProvider({ rpm: 600, tpm: 100_000, latencyMs: 5, answerTokens: () => 300 });
const limiter = new Limiter({ rpm: 600, tpm: 100_000, provider: "openai" });
const registry = new Registry();
const stop = exposeLimiter(limiter, registry, { model: "simulated-model" });

await Promise.all(
  Array.from({ length: 40 }, () =>
    limiter.run(200 + MAX_TOKENS, async (reservation) => {
      const result = await provider.call({ prompt: 200, maxTokens: MAX_TOKENS });
      reservation.sync(result.headers, { status: result.status });
      if (result.status !== 200) return { value: result.status };
      return { value: result.status, used: result.usage.promptTokens + result.usage.completionTokens };
    }),
  ),
);
console.log(await registry.metrics());
stop();
await limiter.close();
