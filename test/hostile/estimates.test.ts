import { describe, expect, it } from "vitest";
import { MAX_MODELS, MAX_RATIO } from "../../src/core/estimate-ratios.js";
import { Limiter, estimateRequest } from "../../src/index.js";

const PROMPT = "A prompt long enough to teach a ratio, in plain English words. ".repeat(8);
const body = (model: string) =>
  JSON.stringify({ model, max_tokens: 10, messages: [{ role: "user", content: PROMPT }] });

/** An upstream that answers every chat request with `usage`. */
const answering =
  (usage: unknown): typeof fetch =>
  async () =>
    Response.json({ id: "c", object: "chat.completion", choices: [], usage });

async function call(limiter: Limiter, upstream: typeof fetch, model = "gpt-x"): Promise<void> {
  const fetch = limiter.fetch({ fetch: upstream });
  const response = await fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body(model),
  });
  await response.text();
}

describe("hostile usages through limiter.fetch(): what the estimates learn stays bounded", () => {
  it("a prompt count of 1e300 raises the correction to its bound, no further; the next estimate is finite", async () => {
    const limiter = new Limiter({ tpm: 1e12, onWarning: () => undefined });
    const raw = estimateRequest(JSON.parse(body("gpt-x")), { endpoint: "chat.completions" }).input;
    await call(limiter, answering({ prompt_tokens: 1e300, completion_tokens: 1 }));
    expect(limiter.snapshot().estimates?.["chat.completions gpt-x"]?.ratio).toBe(MAX_RATIO);
    const seen: unknown[] = [];
    limiter.on("admitted", ({ estimate }) => seen.push(estimate));
    await call(limiter, answering({ prompt_tokens: 1, completion_tokens: 1 }));
    expect(seen).toEqual([{ input: Math.ceil(raw * MAX_RATIO), output: 10 }]);
  });

  it("counts that are not counts teach nothing and throw nothing", async () => {
    const limiter = new Limiter({ tpm: 1e12 });
    for (const prompt_tokens of [-5, "300", null, Number.MAX_VALUE * 10, { valueOf: () => 3 }]) {
      await call(limiter, answering({ prompt_tokens, completion_tokens: 1 }));
    }
    expect(limiter.snapshot().estimates).toBeUndefined();
    expect(limiter.snapshot().inFlight).toBe(0);
  });

  it("a thousand model names keep at most MAX_MODELS keys, each name cut short", async () => {
    const limiter = new Limiter({ tpm: 1e12 });
    for (let i = 0; i < 1_000; i++) {
      await call(limiter, answering({ prompt_tokens: 200, completion_tokens: 1 }), `m${i}-${"x".repeat(10_000)}`);
    }
    const keys = Object.keys(limiter.snapshot().estimates ?? {});
    expect(keys).toHaveLength(MAX_MODELS + 1);
    expect(Math.max(...keys.map((key) => key.length))).toBeLessThan(200);
  });
});
