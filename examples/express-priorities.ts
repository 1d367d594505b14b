/**
 * An Express server whose users and whose background job share one limiter: the users' route
 * calls with priority "interactive" and a tenant per customer (from a request header), the job
 * with priority "background", which never takes the last 20% of a budget. The job saturates the
 * budget; the users' calls still go at once. This file starts the server on a free port, runs
 * the job, sends a few user requests to itself, prints how long each kind waited, and stops.
 * Runs against the simulator, or OpenAI when OPENAI_API_KEY is set:
 * `npx tsx examples/express-priorities.ts`.
 * In your own project, import from "llm-limiter" rather than "../src/index.js".
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import express from "express";
import OpenAI from "openai";
import { Limiter, TENANT_HEADER } from "../src/index.js";
import { connect } from "./shared/provider.js";

const LATENCY_MS = 100;
const BACKGROUND_CALLS = 30;
const USER_REQUESTS = 6;

// Every answer uses its whole max_tokens, so nothing is refunded and the job really fills the budget.
const target = await connect("openai", { tpm: 600_000, latencyMs: LATENCY_MS, answerTokens: (call) => call.maxTokens });
const limiter = new Limiter({
  tpm: 600_000,
  // A burst of one second's refill instead of a minute's, so the job saturates the budget at once.
  capacity: { tpm: 10_000 },
  provider: "openai",
  priorities: ["interactive", "default", "background"],
  headroom: { background: 0.2 },
});
const client = (fetch: typeof globalThis.fetch): OpenAI =>
  new OpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, fetch, maxRetries: 0 });
const interactive = client(limiter.fetch({ priority: "interactive" }));
const background = client(limiter.fetch({ priority: "background", tenant: "nightly-backfill" }));

/** Milliseconds `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const app = express();
app.use(express.json());
app.post("/summarise", async (req, res) => {
  const text = String((req.body as { text?: unknown }).text);
  const answer = await interactive.chat.completions.create(
    { model: target.model, messages: [{ role: "user", content: `Summarise: ${text}` }], max_completion_tokens: 100 },
    // The customer is this call's tenant: customers share the interactive class fairly.
    { headers: { [TENANT_HEADER]: req.get("x-customer") ?? "anonymous" } },
  );
  res.json({ summary: answer.choices[0]?.message.content });
});
const server = app.listen(0, "127.0.0.1");
await once(server, "listening");
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// The job: each call reserves about 1,000 tokens, 30,000 in all: three seconds of the budget.
const job = Promise.all(
  Array.from({ length: BACKGROUND_CALLS }, (_, i) =>
    timed(() =>
      background.chat.completions.create({
        model: target.model,
        messages: [{ role: "user", content: `Classify ticket #${i}.` }],
        max_completion_tokens: 980,
      }),
    ),
  ),
);

// Users arrive while the job runs, one every 300 ms.
const users: Promise<number>[] = [];
for (let i = 0; i < USER_REQUESTS; i++) {
  await sleep(300);
  const customer = i % 2 === 0 ? "acme" : "globex";
  const request = async (): Promise<void> => {
    const response = await fetch(`${url}/summarise`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-customer": customer },
      body: JSON.stringify({ text: `ticket ${i} of ${customer}` }),
    });
    if (!response.ok) throw new Error(`POST /summarise: ${response.status} ${await response.text()}`);
    await response.json();
  };
  users.push(timed(request));
}

const summary = (ms: number[]): string => {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `median ${Math.round(median)} ms, longest ${Math.round(sorted.at(-1) ?? 0)} ms`;
};
console.log(`interactive, ${USER_REQUESTS} requests through Express: ${summary(await Promise.all(users))}`);
console.log(`background, ${BACKGROUND_CALLS} calls:                  ${summary(await job)}`);
console.log(`(each call spends ${LATENCY_MS} ms at the provider; the rest is its wait for admission)`);

server.close();
await limiter.close();
await target.close();
