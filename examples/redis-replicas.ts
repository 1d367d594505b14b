/**
 * Several replicas of a service on one quota: each process has its own limiter with a
 * `RedisStore` on the same key, so together they keep the key's budgets, concurrency included.
 * This file forks itself into three replicas that call the provider at once, then prints what
 * each one was admitted and how many 429s the provider sent (none). Without the store, each
 * replica would run 4 calls at once, 12 in all, against a limit of 4.
 * Uses REDIS_URL when set, else starts a redis-server of its own. Runs against the simulator, or
 * OpenAI when OPENAI_API_KEY is set: `npx tsx examples/redis-replicas.ts`.
 * In your own project, import from "llm-limiter" and "llm-limiter/redis" rather than "../src/...".
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import OpenAI from "openai";
import { Limiter } from "../src/index.js";
import { RedisStore } from "../src/redis/index.js";
import { connect, type Target } from "./shared/provider.js";
import { startRedisServer } from "./shared/redis-server.js";

const BUDGET = { rpm: 600, tpm: 100_000, concurrency: 4 };
const REPLICAS = 3;
const CALLS_PER_REPLICA = 8;

/** What the parent tells a replica, over IPC (so an API key never shows in a process list). */
interface Job {
  readonly redisUrl: string;
  readonly key: string;
  readonly target: Pick<Target, "baseURL" | "apiKey" | "model">;
}

/** What a replica reports back. */
interface Report {
  readonly admitted: number;
  readonly answered: number;
}

/** One replica: its own limiter on the shared key, `CALLS_PER_REPLICA` calls at once. */
async function replica({ redisUrl, key, target }: Job): Promise<Report> {
  const redis = new Redis(redisUrl, { autoResendUnfulfilledCommands: false });
  const limiter = new Limiter({ ...BUDGET, provider: "openai", store: new RedisStore({ client: redis, key }) });
  let admitted = 0;
  limiter.on("admitted", () => admitted++);
  // maxRetries 0: a 429 would fail the call, and so the replica.
  const openai = new OpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, fetch: limiter.fetch(), maxRetries: 0 });
  const answers = await Promise.all(
    Array.from({ length: CALLS_PER_REPLICA }, (_, i) =>
      openai.chat.completions.create({
        model: target.model,
        messages: [{ role: "user", content: `Question ${i}: what is a lease?` }],
        max_completion_tokens: 50,
      }),
    ),
  );
  await limiter.close();
  await redis.quit();
  return { admitted, answered: answers.length };
}

/** Forks a replica of this file, sends it its job, and waits for its report. */
async function runReplica(job: Job): Promise<Report> {
  const child = fork(fileURLToPath(import.meta.url), ["replica"]);
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`a replica exited with ${code} before reporting`);
  });
  const reported = once(child, "message").then(([report]) => report as Report);
  child.send(job);
  const report = await Promise.race([reported, exited]);
  await once(child, "exit");
  return report;
}

if (process.argv[2] === "replica") {
  const [job] = (await once(process, "message")) as [Job];
  process.send?.(await replica(job));
  process.disconnect();
} else {
  const server = process.env.REDIS_URL ? undefined : await startRedisServer();
  const redisUrl = process.env.REDIS_URL ?? server!.url;
  const target = await connect("openai", { ...BUDGET, latencyMs: 150 });
  try {
    const job: Job = {
      redisUrl,
      key: `llm-limiter-example:${process.pid}:${Date.now()}`, // a fresh quota for every run
      target: { baseURL: target.baseURL, apiKey: target.apiKey, model: target.model },
    };
    const reports = await Promise.all(Array.from({ length: REPLICAS }, () => runReplica(job)));
    for (const [i, { admitted, answered }] of reports.entries()) {
      console.log(`replica ${i + 1}: ${admitted} calls admitted, ${answered} answered`);
    }
    const maxInFlight = target.simulator?.stats().maxInFlight;
    if (maxInFlight !== undefined)
      console.log(`Most calls in flight at the provider at once: ${maxInFlight} (limit ${BUDGET.concurrency})`);
  } finally {
    await target.close();
    await server?.stop();
  }
}
