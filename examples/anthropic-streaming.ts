/**
 * The Anthropic SDK with `limiter.fetch()`, streaming, on Anthropic's separate input (ITPM) and
 * output (OTPM) budgets: each stream is admitted on its prompt and `max_tokens`, holds its
 * reservation while it streams, and settles on the usage of `message_start` and `message_delta`.
 * Runs against the simulator, or Anthropic when ANTHROPIC_API_KEY is set:
 * `npx tsx examples/anthropic-streaming.ts`.
 * In your own project, import from "llm-limiter" rather than "../src/index.js".
 */
import Anthropic from "@anthropic-ai/sdk";
import { Limiter } from "../src/index.js";
import { connect } from "./shared/provider.js";

const BUDGET = { rpm: 50, itpm: 30_000, otpm: 8_000 };

const target = await connect("anthropic", { ...BUDGET, latencyMs: (call) => 50 + call.actual });
const limiter = new Limiter({ ...BUDGET, provider: "anthropic" });
const anthropic = new Anthropic({ baseURL: target.baseURL, apiKey: target.apiKey, fetch: limiter.fetch() });

async function haiku(topic: string): Promise<string> {
  const stream = anthropic.messages.stream({
    model: target.model,
    max_tokens: 300,
    messages: [{ role: "user", content: `Write a haiku about ${topic}.` }],
  });
  let text = "";
  stream.on("text", (delta) => (text += delta));
  const message = await stream.finalMessage();
  const { input_tokens, output_tokens } = message.usage;
  return `${topic}: ${input_tokens} in, ${output_tokens} out, ${text.length} characters`;
}

// Four streams at once; their reservations hold 4 × 300 of OTPM until each one ends.
const lines = await Promise.all(["token buckets", "queues", "back-pressure", "retries"].map(haiku));
for (const line of lines) console.log(line);

// The same, with `create({ stream: true })` and its raw events.
const events = await anthropic.messages.create({
  model: target.model,
  max_tokens: 200,
  messages: [{ role: "user", content: "One more, about headers." }],
  stream: true,
});
let deltas = 0;
for await (const event of events) if (event.type === "content_block_delta") deltas++;
console.log(`create({ stream: true }): ${deltas} text deltas`);

// Admitted on prompt + max_tokens; settled to the usage each stream reported.
const { itpm, otpm } = limiter.snapshot().dimensions;
const percent = (share = 0): string => `${Math.round(share * 100)}%`;
console.log(
  `itpm: ${percent(itpm?.utilisation)} of the budget used; otpm: ${percent(otpm?.utilisation)}, ${percent(otpm?.efficiency)} of max_tokens`,
);
await limiter.close();
await target.close();
