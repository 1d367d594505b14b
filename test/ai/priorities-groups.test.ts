import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { PRIORITY_HEADER, TENANT_HEADER } from "../../src/fetch/call-headers.js";
import { Limiter, LimiterGroup, type AcquireOptions } from "../../src/index.js";
import { useSimulator } from "../integration/helpers.js";
import { openAIChat, watchedFetch } from "./helpers.js";

const prompt = "Why does a token bucket refill continuously?";

/** A limiter that keeps the options of every admission the middleware asks for. */
function optionsSeen(limiter: Limiter): { limiter: Limiter; seen: (AcquireOptions | undefined)[] } {
  const seen: (AcquireOptions | undefined)[] = [];
  const wrapped = {
    run: ((estimate, fn, options) => {
      seen.push(options);
      return limiter.run(estimate, fn, options);
    }) as Limiter["run"],
    acquire: ((estimate, options) => {
      seen.push(options);
      return limiter.acquire(estimate, options);
    }) as Limiter["acquire"],
  };
  return { limiter: wrapped as unknown as Limiter, seen };
}

describe("the middleware's priority and tenant", () => {
  const sim = useSimulator({ tpm: 100_000, answerTokens: () => 10 });

  it("admits in the options' class, or the one a call's header names; the headers are not sent", async () => {
    const { limiter, seen } = optionsSeen(
      new Limiter({ tpm: 100_000, provider: "openai", priorities: ["interactive", "background"] }),
    );
    const wire = watchedFetch();
    const middleware = rateLimitMiddleware(limiter, { priority: "background", tenant: "batch" });
    const model = openAIChat(sim().server, middleware, wire.fetch);

    await generateText({ model, prompt, maxOutputTokens: 50, maxRetries: 0 });
    await generateText({
      model,
      prompt,
      maxOutputTokens: 50,
      maxRetries: 0,
      headers: { [PRIORITY_HEADER]: "interactive", [TENANT_HEADER]: "acme" },
    });

    expect(seen.map((options) => [options?.priority, options?.tenant])).toEqual([
      ["background", "batch"],
      ["interactive", "acme"],
    ]);
    for (const headers of wire.sent) {
      expect(headers.has(PRIORITY_HEADER)).toBe(false);
      expect(headers.has(TENANT_HEADER)).toBe(false);
    }
  });

  it("rejects a call whose header names no class, before it is sent", async () => {
    const limiter = new Limiter({ tpm: 100_000, provider: "openai", priorities: ["interactive", "background"] });
    const wire = watchedFetch();
    const model = openAIChat(sim().server, rateLimitMiddleware(limiter), wire.fetch);
    await expect(
      generateText({ model, prompt, maxRetries: 0, headers: { [PRIORITY_HEADER]: "urgent" } }),
    ).rejects.toThrow(/priority/);
    expect(wire.sent).toHaveLength(0);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
  });

  it("refuses a priority or tenant that is not a string at once", () => {
    const limiter = new Limiter({ tpm: 100_000 });
    expect(() => rateLimitMiddleware(limiter, { priority: 3 as unknown as string })).toThrow(TypeError);
    expect(() => rateLimitMiddleware(limiter, { tenant: [] as unknown as string })).toThrow(TypeError);
  });
});

describe("the middleware over a LimiterGroup", () => {
  const sim = useSimulator({ tpm: 100_000, answerTokens: () => 10 });

  it("admits each call on the member named by the model's id, and on the shared budget", async () => {
    const group = new LimiterGroup({
      models: { "gpt-sim": { rpm: 10 }, other: { rpm: 10 } },
      shared: { rpm: 20 },
      provider: "openai",
      initial: "full",
    });
    const model = openAIChat(sim().server, rateLimitMiddleware(group));

    await generateText({ model, prompt, maxOutputTokens: 50, maxRetries: 0 });

    const { members, shared } = group.snapshot();
    expect(members["gpt-sim"]?.dimensions.rpm?.available).toBe(9);
    expect(members.other?.dimensions.rpm?.available).toBe(10);
    expect(shared.rpm?.available).toBe(19);
    await group.close();
  });
});
