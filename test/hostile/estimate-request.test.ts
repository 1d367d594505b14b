import { describe, expect, it } from "vitest";
import { estimateRequest } from "../../src/index.js";
import { MAX_JSON_DEPTH } from "../../src/estimate/count.js";

/** `{ a: { a: ... } }`, `depth` levels deep, built without recursion. */
function nested(depth: number, wrap: (inner: unknown) => unknown = (inner) => ({ a: inner })): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

describe("estimateRequest on hostile bodies: finite results, no stack overflow", () => {
  const deep = nested(20_000);
  it.each([
    ["a tool schema", { model: "gpt-4o", messages: [], tools: [deep] }],
    ["a content part", { model: "gpt-4o", messages: [{ role: "user", content: [{ type: "x", v: deep }] }] }],
    ["a Responses item", { model: "gpt-4o", input: [{ type: "function_call_output", output: deep }] }],
    [
      "an Anthropic tool's input_schema",
      { model: "claude", max_tokens: 1, messages: [], tools: [{ input_schema: deep }] },
    ],
    [
      "Anthropic tool results nested in tool results",
      {
        model: "claude",
        max_tokens: 1,
        messages: [{ role: "user", content: nested(20_000, (inner) => [{ type: "tool_result", content: inner }]) }],
      },
    ],
  ])("nested 20,000 deep in %s", (_, body) => {
    const { input, output } = estimateRequest(body);
    expect(Number.isFinite(input) && Number.isFinite(output)).toBe(true);
    // The part past the cut counts a placeholder: about two tokens a level above it, nothing below.
    expect(input).toBeLessThan(20 * MAX_JSON_DEPTH);
  });

  it("a shallower schema is counted whole, as before", () => {
    const a = estimateRequest({ model: "gpt-4o", messages: [], tools: [nested(MAX_JSON_DEPTH - 1)] });
    const b = estimateRequest({ model: "gpt-4o", messages: [], tools: [nested(MAX_JSON_DEPTH - 2)] });
    expect(a.input).toBeGreaterThan(b.input);
  });

  it.each([
    ["max_tokens 1e308 times n 10", { model: "gpt-4o", messages: [], max_tokens: 1e308, n: 10 }],
    ["max_completion_tokens MAX_VALUE", { model: "gpt-4o", messages: [], max_completion_tokens: Number.MAX_VALUE }],
    ["Anthropic's max_tokens 1e308", { model: "claude", max_tokens: 1e308, messages: [] }],
  ])("%s: a finite output, whole", (_, body) => {
    const { output } = estimateRequest(body);
    expect(output).toBe(Number.MAX_SAFE_INTEGER);
  });
});
