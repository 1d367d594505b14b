/**
 * LangChain.js: `ChatOpenAI` hands its `configuration` to the OpenAI client it makes, so a
 * `limiter.fetch()` there puts every call through the limiter: `invoke`, `batch` and `stream`.
 * Runs against the simulator, or OpenAI when OPENAI_API_KEY is set:
 * `npx tsx examples/langchain.ts`.
 * In your own project, import from "llm-limiter" rather than "../src/index.js".
 */
import { ChatOpenAI } from "@langchain/openai";
import { Limiter } from "../src/index.js";
import { connect } from "./shared/provider.js";

const BUDGET = { rpm: 60, tpm: 20_000 };

const target = await connect("openai", { ...BUDGET, latencyMs: (call) => 50 + call.actual });
const limiter = new Limiter({ ...BUDGET, provider: "openai" });
const chat = new ChatOpenAI({
  model: target.model,
  apiKey: target.apiKey,
  maxTokens: 200,
  configuration: { fetch: limiter.fetch(), baseURL: target.baseURL },
});

const answers = await chat.batch(["What is a token bucket?", "What is RPM?", "What is TPM?"]);
for (const answer of answers) console.log(`${answer.usage_metadata?.total_tokens} tokens used`);

let chunks = 0;
for await (const chunk of await chat.stream("Name two rate-limiting algorithms.")) if (chunk.content) chunks++;
console.log(`stream: ${chunks} chunks of content`);

const { tpm } = limiter.snapshot().dimensions;
console.log(`tpm: ${Math.round((tpm?.utilisation ?? 0) * 100)}% of the budget used`);
await limiter.close();
await target.close();
