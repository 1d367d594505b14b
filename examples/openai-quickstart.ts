/**
 * The README's OpenAI quick start as a runnable file: the official OpenAI SDK behind
 * llm-limiter. Needs OPENAI_API_KEY (`npx tsx examples/openai-quickstart.ts`);
 * `npm run demo` runs the same pattern against the simulator instead.
 * In your own project, import from "llm-limiter" rather than "../src/index.js".
 */
import OpenAI from "openai";
import { Limiter } from "../src/index.js";

// The limiter owns retries: an SDK retry would hide the 429 from it.
const openai = new OpenAI({ maxRetries: 0 });
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
        .create({ model: "gpt-4o-mini", messages, max_tokens: maxTokens }, { signal: reservation.signal })
        .withResponse();
      reservation.sync(response.headers); // the provider's numbers are the truth
      return { value: data, used: data.usage?.total_tokens };
    },
    { retry: { attempts: 3 } },
  );
}

const answer = await ask([{ role: "user", content: "In one sentence: what is a token bucket?" }]);
console.log(answer.choices[0]?.message.content);
