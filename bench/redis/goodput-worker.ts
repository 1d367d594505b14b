/**
 * One process of the Redis goodput benchmark (`node --import tsx goodput-worker.ts <job>`):
 * on "go", makes its calls at once to the simulated provider over HTTP through a limiter on
 * its default options (a `RedisStore` on defaults, or the memory store), retrying 429s as
 * `run` does, settling what each call used and syncing every response's headers.
 */
import { Redis } from "ioredis";
import { Limiter } from "../../src/index.js";
import { ioredis, RedisStore } from "../../src/redis/index.js";
import { recording, type Take } from "../../test/redis/served-order.js";
import { epochNow } from "./jobs.js";
import type { FromGoodputWorker, GoodputJob } from "./goodput-job.js";

const job = JSON.parse(process.argv[2]!) as GoodputJob;
const send = (message: FromGoodputWorker): void => void process.send!(message);

const redis =
  job.redisUrl === undefined ? undefined : new Redis(job.redisUrl, { autoResendUnfulfilledCommands: false });
if (redis) await new Promise((resolve) => redis.once("ready", resolve));
const warnings = new Set<string>();
/** What each booking call took, and where in Redis' order. */
const takes: Take[] = [];
const limiter = new Limiter({
  ...job.limits,
  provider: "openai",
  ...(redis && { store: new RedisStore({ client: recording(ioredis(redis), 0, takes, 0), key: job.key }) }),
  onWarning: (warning) => warnings.add(warning.message),
});
const body = JSON.stringify({
  model: "m",
  messages: [{ role: "user", content: job.prompt }],
  max_tokens: job.maxTokens,
});
let rejected = 0;

function oneCall(): Promise<number> {
  return limiter.run(
    job.promptTokens + job.maxTokens,
    async (reservation) => {
      const response = await fetch(`${job.providerUrl}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const json = (await response.json()) as { usage?: { total_tokens: number }; error?: unknown };
      if (response.status === 429) {
        rejected++;
        throw Object.assign(new Error("429"), { status: 429, headers: response.headers, error: json.error });
      }
      reservation.sync(response.headers);
      return { value: epochNow(), used: json.usage!.total_tokens };
    },
    { retry: { attempts: 20 } },
  );
}

process.once("message", async () => {
  const completedAt = await Promise.all(Array.from({ length: job.calls }, oneCall));
  send({ type: "done", report: { completedAt, takes, rejected, warnings: [...warnings] } });
  await limiter.close();
  redis?.disconnect();
  process.disconnect();
});
// Orphaned (the benchmark died): nothing will say "go".
process.once("disconnect", () => process.exit());
send({ type: "ready" });
