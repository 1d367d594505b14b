/**
 * A worker process of the multi-process tests (`node --import tsx worker.ts <job>`):
 * makes its share of the calls to the simulated provider over HTTP through a
 * limiter on the shared Redis key, syncing every response's headers, and
 * reports the statuses. Waits for "go" so that every worker starts together.
 */
import { Redis } from "ioredis";
import { Limiter, type Estimate, type Usage } from "../../src/index.js";
import { ioredis, RedisStore } from "../../src/redis/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import type { ResetReading, ToParent, ToWorker, WorkerJob } from "./job.js";

const job = JSON.parse(process.argv[2]!) as WorkerJob;
const send = (message: ToParent): void => void process.send!(message);

const messages = [{ role: "user", content: "Summarise the design notes in one line." }];
const prompt = estimatePromptTokens({ messages });

interface Call {
  readonly path: string;
  readonly estimate: Estimate;
  usedOf(body: unknown): Usage;
}

// What the provider charges at admission: the prompt plus max_tokens.
const CALLS: Record<WorkerJob["dialect"], Call> = {
  openai: {
    path: "/v1/chat/completions",
    estimate: prompt + job.maxTokens,
    usedOf: (body) => (body as { usage: { total_tokens: number } }).usage.total_tokens,
  },
  anthropic: {
    path: "/v1/messages",
    estimate: { input: prompt, output: job.maxTokens },
    usedOf: (body) => {
      const { input_tokens, output_tokens } = (body as { usage: { input_tokens: number; output_tokens: number } })
        .usage;
      return { input: input_tokens, output: output_tokens };
    },
  },
};
const call = CALLS[job.dialect];

const redis = job.redisUrl === undefined ? undefined : new Redis(job.redisUrl);
// The store sends nothing until the client is ready.
if (redis) await new Promise((resolve) => redis.once("ready", resolve));
const store = redis && new RedisStore({ client: ioredis(redis), key: job.key });
// Default options: the start-up burst's lag to the provider is covered by the default arrivalDelayMs.
const limiter = new Limiter({
  ...job.limits,
  provider: job.dialect,
  ...(store ? { store } : {}),
  ...(job.initial ? { initial: job.initial } : {}),
});

let lastReset: ResetReading | undefined;

function oneCall(): Promise<number> {
  return limiter.run(call.estimate, async (r) => {
    const response = await fetch(`${job.providerUrl}${call.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages, max_tokens: job.maxTokens }),
    });
    const body: unknown = await response.json();
    const view = r.sync(response.headers, { status: response.status, body });
    if (response.status !== 200) return { value: response.status };
    const reset = response.headers.get("anthropic-ratelimit-input-tokens-reset");
    if (reset !== null)
      lastReset = { resetMs: view.dimensions.itpm?.resetMs, date: response.headers.get("date") ?? "", reset };
    return { value: response.status, used: call.usedOf(body) };
  });
}

process.on("message", async (message: ToWorker) => {
  if (message.type !== "go") return;
  const wallAtGo = Date.now();
  const statuses = await Promise.all(Array.from({ length: job.calls }, oneCall));
  send({ type: "done", report: { statuses, wallAtGo, lastReset } });
  limiter.close();
  redis?.disconnect();
  process.disconnect();
});

send({ type: "ready" });
