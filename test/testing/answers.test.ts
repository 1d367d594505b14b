import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { estimatePromptTokens } from "../../src/testing/prompt.js";
import type { CallResult, SimulatedProvider } from "../../src/testing/index.js";
import type { AnswerInput } from "../../src/testing/options.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

async function answerLengths(provider: SimulatedProvider, count: number, maxTokens: number): Promise<number[]> {
  const results: CallResult[] = [];
  for (let i = 0; i < count; i++) results.push(await provider.call({ prompt: 10, maxTokens }));
  return results.map((r) => (r.status === 200 ? r.usage.completionTokens : -1));
}

describe("answer lengths", () => {
  it("are the same for the same seed, different for another, and within 1..maxTokens", async () => {
    const a = await answerLengths(createProvider({ seed: 7, clock: time.clock }), 200, 512);
    const b = await answerLengths(createProvider({ seed: 7, clock: time.clock }), 200, 512);
    const c = await answerLengths(createProvider({ seed: 8, clock: time.clock }), 200, 512);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.every((n) => Number.isInteger(n) && n >= 1 && n <= 512)).toBe(true);
    // Uniform in 1..512: the mean of 200 draws is near 256.5 (sd about 10).
    const mean = a.reduce((sum, n) => sum + n, 0) / a.length;
    expect(mean).toBeGreaterThan(200);
    expect(mean).toBeLessThan(313);
  });

  it("count rejected calls in the sequence, so a run replays the same draws whatever was admitted", async () => {
    const open = createProvider({ seed: 3, clock: time.clock });
    const limited = createProvider({ seed: 3, rpm: 1, clock: time.clock });
    const openLengths = await answerLengths(open, 3, 100);
    await limited.call({ prompt: 10, maxTokens: 100 });
    await limited.call({ prompt: 10, maxTokens: 100 });
    await time.at(60_000);
    const third = await limited.call({ prompt: 10, maxTokens: 100 });
    expect(third.status === 200 && third.usage.completionTokens).toBe(openLengths[2]);
  });

  it("come from answerTokens when given, capped at max_tokens with finish reason 'length'", async () => {
    const seen: AnswerInput[] = [];
    const provider = createProvider({
      clock: time.clock,
      answerTokens: (request) => {
        seen.push(request);
        return request.index === 0 ? 40 : 10_000;
      },
    });
    const short = await provider.call({ prompt: 5, maxTokens: 100 });
    const long = await provider.call({ prompt: 6, maxTokens: 100 });
    expect(short).toMatchObject({
      status: 200,
      usage: { promptTokens: 5, completionTokens: 40 },
      body: { choices: [{ finish_reason: "stop" }] },
    });
    expect(long).toMatchObject({
      status: 200,
      usage: { completionTokens: 100 },
      body: { choices: [{ finish_reason: "length" }] },
    });
    expect(seen).toEqual([
      { index: 0, prompt: 5, maxTokens: 100, body: undefined },
      { index: 1, prompt: 6, maxTokens: 100, body: undefined },
    ]);
  });

  it("prefer an explicit actual over the hook", async () => {
    const provider = createProvider({ clock: time.clock, answerTokens: () => 1 });
    const result = await provider.call({ prompt: 5, maxTokens: 100, actual: 77 });
    expect(result.status === 200 && result.usage.completionTokens).toBe(77);
  });

  it("reject the call, consuming nothing, when the hook returns something that is not a token count", async () => {
    const provider = createProvider({ rpm: 10, clock: time.clock, answerTokens: () => 2.5 });
    await expect(provider.call({ prompt: 5, maxTokens: 100 })).rejects.toThrow(RangeError);
    expect(provider.stats()).toMatchObject({ served: 0, rejected: 0, inFlight: 0, tokensCharged: 0, calls: [] });
  });

  it("produce answer text that estimates back to the token count (ceil(chars / 4))", async () => {
    const provider = createProvider({ clock: time.clock });
    for (const actual of [0, 1, 2, 9, 250]) {
      const result = await provider.call({ prompt: 1, maxTokens: 250, actual });
      const text =
        result.status === 200 && "choices" in result.body ? (result.body.choices[0]?.message.content ?? "") : "";
      expect(Math.ceil(text.length / 4)).toBe(actual);
    }
  });
});

describe("estimatePromptTokens", () => {
  it("is 3 + sum of (3 + ceil(chars / 4)) over messages", () => {
    expect(estimatePromptTokens({ messages: [] })).toBe(3);
    expect(estimatePromptTokens({ messages: [{ content: "hello world" }] })).toBe(3 + 3 + 3);
    expect(estimatePromptTokens({ messages: [{ content: "abcd" }, { content: "abcde" }] })).toBe(3 + (3 + 1) + (3 + 2));
  });

  it("counts only text parts, a null content as empty, and Anthropic's system prompt as a message", () => {
    expect(
      estimatePromptTokens({
        system: [{ type: "text", text: "be brief" }],
        messages: [
          { content: [{ type: "text", text: "abcd" }, { type: "image" }, { type: "text", text: "efgh" }] },
          { content: null },
        ],
      }),
    ).toBe(3 + (3 + 2) + (3 + 2) + 3);
    expect(estimatePromptTokens({ system: "", messages: [{ content: "abcd" }] })).toBe(3 + 4);
  });
});
