/**
 * The Vercel AI SDK with `rateLimitMiddleware` of `llm-limiter/ai`: `wrapLanguageModel` puts every
 * call of the model through the limiter, `generateText` and `streamText` alike, whatever the
 * provider. Runs against the simulator, or OpenAI when OPENAI_API_KEY is set:
 * `npx tsx examples/ai-sdk.ts`.
 * In your own project, import from "llm-limiter" and "llm-limiter/ai" rather than "../src/...".
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { rateLimitMiddleware } from "../src/ai/index.js";
import { Limiter } from "../src/index.js";
import { connect } from "./shared/provider.js";

const BUDGET = { rpm: 60, tpm: 20_000 };

const target = await connect("openai", { ...BUDGET, latencyMs: (call) => 50 + call.actual });
const limiter = new Limiter({ ...BUDGET, provider: "openai" });
const model = wrapLanguageModel({
  model: createOpenAI({ baseURL: target.baseURL, apiKey: target.apiKey }).chat(target.model),
  middleware: rateLimitMiddleware(limiter),
});

// Set maxOutputTokens on every call: OpenAI charges it at admission, and the middleware reserves it.
const topics = ["token buckets", "FIFO queues", "retry-after headers"];
const results = await Promise.all(
  topics.map((topic) => generateText({ model, prompt: `One sentence on ${topic}.`, maxOutputTokens: 200 })),
);
for (const [i, { usage }] of results.entries()) console.log(`${topics[i]}: ${usage.totalTokens} tokens used`);

// A stream holds its reservation until it ends, and settles on its `finish` part's usage.
const stream = streamText({ model, prompt: "Why do token buckets refill continuously?", maxOutputTokens: 100 });
let deltas = 0;
for await (const delta of stream.textStream) if (delta) deltas++;
console.log(`streamText: ${deltas} text deltas, ${(await stream.usage).totalTokens} tokens used`);

const { tpm } = limiter.snapshot().dimensions;
console.log(`tpm: ${Math.round((tpm?.utilisation ?? 0) * 100)}% of the budget used`);
await limiter.close();
await target.close();
