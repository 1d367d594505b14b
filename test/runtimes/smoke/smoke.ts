/**
 * What every runtime must do as Node does, bundled into one file per runtime (see bundle.ts): admission, header
 * sync, `limiter.fetch()` against the simulator in process, the AI SDK middleware, `flush()`. It imports the
 * package's entries (`llm-limiter`, `/ai`, `/testing`) from src/. Each check returns what it saw; the test compares.
 */
import { generateText, wrapLanguageModel } from "ai";
import { rateLimitMiddleware } from "../../../src/ai/index.js";
import { Limiter } from "../../../src/index.js";
import { createProvider } from "../../../src/testing/index.js";

/** What one run saw. */
export interface SmokeResult {
  readonly admission: string[];
  readonly syncedAvailable: number;
  readonly fetchStatuses: number[];
  readonly learned: string[];
  readonly aiText: string;
  readonly aiSettledTokens: number;
  readonly flushed: boolean;
  readonly warnings: string[];
}

export async function smoke(): Promise<SmokeResult> {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning.name);

  // Admission: two of rpm 2 at once, the third refused at once (no wait allowed).
  const limiter = new Limiter({ rpm: 2, tpm: 1_000, initial: "full", maxWaitMs: 0, onWarning });
  const admission: string[] = [];
  for (let i = 0; i < 3; i++) {
    try {
      (await limiter.acquire(100)).release();
      admission.push("admitted");
    } catch (error) {
      admission.push((error as { code?: string }).code ?? String(error));
    }
  }

  // Header sync: the provider says no tokens are left.
  const synced = new Limiter({ tpm: 1_000, initial: "full", onWarning });
  const reservation = await synced.acquire(100);
  reservation.sync({
    "x-ratelimit-limit-tokens": "1000",
    "x-ratelimit-remaining-tokens": "0",
    "x-ratelimit-reset-tokens": "60s",
  });
  reservation.release();
  const syncedAvailable = synced.snapshot().dimensions.tpm!.available;

  // fetch(): three calls at once through a limiter that learns the limits from the simulator's headers.
  const provider = createProvider({ rpm: 60, tpm: 100_000, dialect: "openai", latencyMs: 5, seed: 1 });
  const simulated: typeof fetch = async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { max_tokens: number };
    const result = await provider.call({ prompt: 10, maxTokens: body.max_tokens, actual: 5 });
    return new Response(JSON.stringify(result.body), {
      status: result.status,
      headers: { ...result.headers, "content-type": "application/json" },
    });
  };
  const learner = new Limiter({ onWarning });
  const limitedFetch = learner.fetch({ fetch: simulated });
  const request = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 50, messages: [{ role: "user", content: "Hi" }] }),
  };
  const responses = await Promise.all(
    [1, 2, 3].map(() => limitedFetch("https://api.openai.com/v1/chat/completions", request)),
  );
  await Promise.all(responses.map((r) => r.text()));
  const learned = Object.keys(learner.snapshot().dimensions).sort();

  // The AI SDK's middleware over a model in process: the call settles the 50 tokens it reports (tpd: no refill
  // to speak of while the check runs).
  const aiLimiter = new Limiter({ tpd: 10_000, initial: "full", onWarning });
  const model = wrapLanguageModel({
    model: {
      specificationVersion: "v3",
      provider: "openai.chat",
      modelId: "smoke",
      supportedUrls: {},
      doGenerate: async () => ({
        content: [{ type: "text", text: "hello from the model" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 30, noCache: 30, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 20, text: 20, reasoning: undefined },
        },
        warnings: [],
      }),
      doStream: () => Promise.reject(new Error("not used")),
    },
    middleware: rateLimitMiddleware(aiLimiter),
  });
  const answer = await generateText({ model, prompt: "Hello?", maxRetries: 0 });
  const aiSettledTokens = 10_000 - aiLimiter.snapshot().dimensions.tpd!.available;

  // flush(): resolves in memory at once.
  let flushed = false;
  await Promise.all([limiter, synced, learner, aiLimiter].map((l) => l.flush())).then(() => (flushed = true));
  await Promise.all([limiter, synced, learner, aiLimiter].map((l) => l.close()));

  return {
    admission,
    syncedAvailable,
    fetchStatuses: responses.map((r) => r.status),
    learned,
    aiText: answer.text,
    aiSettledTokens: Math.round(aiSettledTokens),
    flushed,
    warnings,
  };
}
