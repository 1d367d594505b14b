import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { ADMITTED_HEADER } from "../../src/fetch/call-headers.js";
import { textTokens } from "../../src/estimate/text.js";
import { Limiter } from "../../src/index.js";
import { useSimulator } from "../integration/helpers.js";
import { anthropicMessages, openAIChat, recording, watchedFetch } from "./helpers.js";

const system = "You answer questions about token buckets, briefly.";
const prompt = "Why does a token bucket refill continuously rather than once a minute?";

describe("generateText through the middleware, OpenAI chat completions", () => {
  const sim = useSimulator({ tpm: 100_000, answerTokens: () => 25 });

  it("estimates the prompt and maxOutputTokens, settles what the simulator reports, releases", async () => {
    const { limiter, admissions } = recording(new Limiter({ tpm: 100_000, provider: "openai" }));
    const wire = watchedFetch();
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter), wire.fetch);

    const result = await generateText({ model, system, prompt, maxOutputTokens: 300, maxRetries: 0 });

    const [call] = sim().provider.stats().calls;
    expect(call).toMatchObject({ status: 200, maxTokens: 300, actual: 25 });
    expect(admissions).toHaveLength(1);
    const [admission] = admissions;
    // The AI SDK hands the model a system message and a user message: each text, and 3 tokens each, 3 to reply.
    expect(admission?.estimate).toEqual({ input: 9 + textTokens(system) + textTokens(prompt), output: 300 });
    expect(admission?.settled).toEqual([{ input: call?.prompt, output: 25 }]);
    expect(result.usage).toMatchObject({ inputTokens: call?.prompt, outputTokens: 25 });
    expect(admission?.reservation.released).toBe(true);
    expect(wire.sent[0]?.get(ADMITTED_HEADER)).toBe("1");
  });

  it("reserves defaultMaxOutputTokens for a call without maxOutputTokens", async () => {
    const { limiter, admissions } = recording(new Limiter({ tpm: 100_000, provider: "openai" }));
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter, { defaultMaxOutputTokens: 777 }));

    await generateText({ model, prompt, maxRetries: 0 });

    expect(admissions[0]?.estimate).toMatchObject({ output: 777 });
  });

  it("admits on the estimate an `estimate` option returns, told the params and the model", async () => {
    const { limiter, admissions } = recording(new Limiter({ tpm: 100_000, provider: "openai" }));
    const seen: string[] = [];
    const middleware = rateLimitMiddleware(limiter, {
      estimate: (params, model) => {
        seen.push(`${model.modelId} ${params.maxOutputTokens}`);
        return 1_234;
      },
    });

    await generateText({ model: openAIChat(sim().server, middleware), prompt, maxOutputTokens: 50, maxRetries: 0 });

    expect(seen).toEqual(["gpt-sim 50"]);
    expect(admissions[0]?.estimate).toBe(1_234);
    expect(admissions[0]?.settled).toHaveLength(1);
  });
});

describe("generateText through the middleware, Anthropic messages", () => {
  const quota = { itpm: 40_000, otpm: 8_000 };
  const sim = useSimulator({ ...quota, dialect: "anthropic", answerTokens: () => 30 });

  it("settles { input, output } as the simulator reports them on an ITPM/OTPM limiter", async () => {
    const { limiter, admissions } = recording(new Limiter({ ...quota, provider: "anthropic" }));
    const wire = watchedFetch();
    const model = anthropicMessages(sim().server, rateLimitMiddleware(limiter), wire.fetch);

    await generateText({ model, system, prompt, maxOutputTokens: 400, maxRetries: 0 });

    const [call] = sim().provider.stats().calls;
    expect(call).toMatchObject({ status: 200, maxTokens: 400, actual: 30 });
    expect(admissions[0]?.estimate).toMatchObject({ output: 400 });
    expect(admissions[0]?.settled).toEqual([{ input: call?.prompt, output: 30 }]);
    expect(admissions[0]?.reservation.released).toBe(true);
    expect(wire.sent[0]?.get(ADMITTED_HEADER)).toBe("1");
  });
});
