/**
 * The README's OpenAI quick start as a runnable file: the official OpenAI SDK behind
 * llm-limiter, with `limiter.run` at the call site. Runs against the simulator, or OpenAI when
 * OPENAI_API_KEY is set: `npx tsx examples/openai-quickstart.ts`.
 * In your own project, import from "llm-limiter" rather than "../src/index.js", and make the
 * client with `new OpenAI({ maxRetries: 0 })`.
 */
import OpenAI from "openai";
import { Limiter } from "../src/index.js";
import { connect } from "./shared/provider.js";

const target = await connect("openai", { rpm: 500, tpm: 200_000, latencyMs: 50 });
// The limiter owns retries: an SDK retry would hide the 429 from it.
const openai = new OpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, maxRetries: 0 });
const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });

/**
 * About 4 characters a token, counted over the serialised messages so roles and
 * structure are included. An estimate is enough: header sync corrects drift.
 */
function promptTokens(messages: readonly OpenAI.ChatCompletionMessageParam[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

export async function ask(
  messages: OpenAI.ChatCompletionMessageParam[],
  maxTokens = 512,
): Promise<OpenAI.ChatCompletion> {
  return limiter.run(
    promptTokens(messages) + maxTokens, // what the provider charges at admission
    async (reservation) => {
      const { data, response } = await openai.chat.completions
        .create({ model: target.model, messages, max_tokens: maxTokens }, { signal: reservation.signal })
        .withResponse();
      reservation.sync(response.headers); // the provider's numbers are the truth
      return { value: data, used: data.usage?.total_tokens };
    },
    { retry: { attempts: 3 } },
  );
}

const answer = await ask([{ role: "user", content: "In one sentence: what is a token bucket?" }]);
console.log(answer.choices[0]?.message.content);
await limiter.close();
await target.close();
