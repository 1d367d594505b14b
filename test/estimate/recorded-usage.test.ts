import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { estimateRequest } from "../../src/index.js";
import type { Endpoint } from "../../src/estimate/types.js";
import recorded from "../fixtures/estimate/recorded-usage.json" with { type: "json" };

/** A request whose body and the input tokens its provider reported for it are both published. */
interface Entry {
  readonly name: string;
  readonly endpoint: Endpoint;
  /** The models that reported `reported.input` for this body. */
  readonly models: readonly string[];
  readonly body: Record<string, unknown>;
  readonly reported: { readonly field: string; readonly input: number; readonly output?: number };
  readonly source: { readonly url: string; readonly repo?: string; readonly path?: string; readonly commit?: string };
}

const entries = recorded as Entry[];
const withTools = (e: Entry): boolean => Array.isArray(e.body.tools);
/** OpenAI models whose tokenizer is o200k, the one `gpt-tokenizer` implements by default. */
const O200K = /^(gpt-4o|gpt-4\.1)/;

/** The estimate's error against the provider's count, as a fraction: positive over, negative under. */
function errorOf(entry: Entry, tokenizer?: (text: string) => number): number {
  const estimated = estimateRequest(entry.body, { endpoint: entry.endpoint, ...(tokenizer && { tokenizer }) }).input;
  return (estimated - entry.reported.input) / entry.reported.input;
}

const meanAbs = (list: readonly Entry[], tokenizer?: (text: string) => number): number =>
  list.reduce((sum, e) => sum + Math.abs(errorOf(e, tokenizer)), 0) / list.length;

// The figures docs/integrations.md states ("Against recorded usage"): change both together.
describe("the estimate against usage providers published, test/fixtures/estimate/recorded-usage.json", () => {
  it("holds ten entries, each with its source", () => {
    expect(entries).toHaveLength(10);
    for (const e of entries) {
      expect(e.source.url, e.name).toMatch(/^https:\/\//);
      expect(e.reported.input, e.name).toBeGreaterThan(0);
      expect(e.models.length, e.name).toBeGreaterThan(0);
    }
    expect(new Set(entries.map((e) => JSON.stringify(e.body.messages ?? e.body.input))).size).toBe(8);
  });

  it("the default never counts under the provider: 28% over on text on average, tools up to 80% over", () => {
    for (const e of entries) expect(errorOf(e), e.name).toBeGreaterThanOrEqual(0);
    const text = entries.filter((e) => !withTools(e));
    expect(text).toHaveLength(7);
    for (const e of text) expect(errorOf(e), e.name).toBeLessThanOrEqual(0.5);
    expect(Math.round(meanAbs(text) * 100)).toBe(28);
    const tools = entries.filter(withTools);
    expect(tools.map((e) => Math.round(errorOf(e) * 100))).toEqual([73, 80, 12]);
  });

  it("with gpt-tokenizer, counts OpenAI's o200k models' text requests exactly", () => {
    const exact = entries.filter((e) => !withTools(e) && e.models.every((m) => O200K.test(m)));
    expect(exact.map((e) => e.name)).toHaveLength(3);
    for (const e of exact) expect(errorOf(e, countTokens), e.name).toBe(0);
    // text-embedding-ada-002 (cl100k) and the earlier models' six messages come within 4%.
    const cl100k = entries.filter((e) => !withTools(e) && e.endpoint !== "messages" && !exact.includes(e));
    for (const e of cl100k) expect(Math.abs(errorOf(e, countTokens)), e.name).toBeLessThanOrEqual(0.04);
    // Tool schemas are counted as JSON text, over what OpenAI renders: 13% and 18%.
    const tools = entries.filter((e) => withTools(e) && e.endpoint === "chat.completions");
    expect(tools.map((e) => Math.round(errorOf(e, countTokens) * 100))).toEqual([13, 18]);
  });

  it("with gpt-tokenizer on Anthropic's counts: exact, 3% over with a tool, 47% over with thinking", () => {
    const anthropic = entries.filter((e) => e.endpoint === "messages");
    expect(anthropic.map((e) => Math.round(errorOf(e, countTokens) * 100))).toEqual([0, 3, 47]);
  });
});
