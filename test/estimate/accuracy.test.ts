import { countTokens, encodeChat } from "gpt-tokenizer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { textTokens } from "../../src/estimate/text.js";
import { estimateRequest } from "../../src/index.js";
import type { Endpoint } from "../../src/estimate/types.js";
import corpus from "../fixtures/estimate/corpus.json" with { type: "json" };

interface Sample {
  readonly name: string;
  readonly endpoint: Endpoint;
  readonly body: Record<string, unknown>;
}

const samples = corpus as Sample[];
const withTools = (s: Sample): boolean => Array.isArray(s.body.tools) || JSON.stringify(s.body).includes("tool_call");

/** The default estimate's error against the same request counted with o200k (`gpt-tokenizer`), as a fraction. */
function errorOf(sample: Sample): number {
  const estimated = estimateRequest(sample.body, { endpoint: sample.endpoint }).input;
  const exact = estimateRequest(sample.body, { endpoint: sample.endpoint, tokenizer: countTokens }).input;
  return (estimated - exact) / exact;
}

// The figures docs/integrations.md states: change both together.
describe("the default estimate against gpt-tokenizer on test/fixtures/estimate/corpus.json", () => {
  it("counts the message structure as OpenAI's chat format does", () => {
    const plain = samples.filter(
      (s) =>
        s.endpoint === "chat.completions" &&
        !withTools(s) &&
        (s.body.messages as { content: unknown }[]).every((m) => typeof m.content === "string"),
    );
    expect(plain.length).toBeGreaterThan(20);
    for (const s of plain) {
      const messages = s.body.messages as { role: "system" | "user" | "assistant"; content: string }[];
      expect(estimateRequest(s.body, { tokenizer: countTokens }).input, s.name).toBe(
        encodeChat(messages, "gpt-4o").length,
      );
    }
  });

  it("errs high on text (+20% on average, at most 16% under, 45% over), and within 60% over on tool schemas", () => {
    expect(samples.length).toBeGreaterThanOrEqual(36);
    const text = samples.filter((s) => !withTools(s));
    for (const s of text) expect(errorOf(s), s.name).toBeGreaterThanOrEqual(-0.16);
    for (const s of text) expect(errorOf(s), s.name).toBeLessThanOrEqual(0.45);
    expect(text.filter((s) => errorOf(s) < 0).map((s) => s.name)).toEqual(["prose-greek", "code-rust", "math", "logs"]);
    const mean = text.reduce((sum, s) => sum + errorOf(s), 0) / text.length;
    expect(Math.round(mean * 100)).toBe(20);
    for (const s of samples.filter(withTools)) expect(errorOf(s), s.name).toBeGreaterThanOrEqual(0);
    for (const s of samples.filter(withTools)) expect(errorOf(s), s.name).toBeLessThanOrEqual(0.6);
  });

  it("never counts a text below the simulator's ceil(chars / 4), so a burst before any usage draws no 429 there", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 2_000 }), (text) => {
        expect(textTokens(text)).toBeGreaterThanOrEqual(Math.ceil(text.length / 4));
      }),
    );
  });
});
