/**
 * The OpenAI SDK with `limiter.fetch()`: every request, streams included, waits for admission,
 * syncs the rate-limit headers and settles on the usage OpenAI reports. No change at the call
 * sites. Runs against the simulator, or OpenAI when OPENAI_API_KEY is set:
 * `npx tsx examples/openai-sdk.ts`.
 * In your own project, import from "llm-limiter" rather than "../src/index.js".
 */
import OpenAI from "openai";
import { Limiter } from "../src/index.js";
import { connect } from "./shared/provider.js";

const BUDGET = { rpm: 60, tpm: 20_000 };

const target = await connect("openai", { ...BUDGET, latencyMs: (call) => 50 + call.actual });
const limiter = new Limiter({ ...BUDGET, provider: "openai" });
// The SDK's retries are fine here: each attempt is a new fetch call, admitted and counted.
const openai = new OpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, fetch: limiter.fetch(), maxRetries: 2 });

const questions = ["a token bucket", "a sliding window", "a leaky bucket", "GCRA", "a fixed window"];
const answers = await Promise.all(
  questions.map((topic) =>
    openai.chat.completions.create({
      model: target.model,
      messages: [{ role: "user", content: `In one sentence: what is ${topic}?` }],
      max_completion_tokens: 200,
    }),
  ),
);
for (const [i, answer] of answers.entries()) {
  console.log(`${questions[i]}: ${answer.usage?.total_tokens} tokens used`);
}

// A stream holds its reservation until it ends; the fetch asks for its usage and hides that chunk.
const stream = await openai.chat.completions.create({
  model: target.model,
  messages: [{ role: "user", content: "Name three rate-limiting algorithms." }],
  max_completion_tokens: 100,
  stream: true,
});
let chunks = 0;
for await (const chunk of stream) if (chunk.choices[0]?.delta.content) chunks++;
console.log(`stream: ${chunks} chunks of content`);

// Reserved prompt + max_completion_tokens at admission, settled to the usage afterwards.
const { tpm } = limiter.snapshot().dimensions;
console.log(
  `tpm: ${Math.round((tpm?.utilisation ?? 0) * 100)}% of the budget used, ${tpm?.efficiency?.toFixed(2)} of the reserved tokens`,
);
await limiter.close();
await target.close();
