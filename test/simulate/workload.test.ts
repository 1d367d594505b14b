import { describe, expect, it } from "vitest";
import { parseWorkload } from "../../src/simulate/index.js";

describe("parseWorkload", () => {
  it("reads one call a line, skips blank lines, keeps model and priority, and sorts by arrival", () => {
    const calls = parseWorkload(
      [
        '{"at": 1500, "prompt": 800, "maxTokens": 1024, "completion": 240}',
        "",
        '{"at": 0, "prompt": 0, "maxTokens": 1, "completion": 0, "model": "gpt-4o", "priority": "batch"}\r',
        '  {"at": 1500, "prompt": 5, "maxTokens": 10, "completion": 10}  ',
      ].join("\n"),
    );
    expect(calls).toEqual([
      { at: 0, prompt: 0, maxTokens: 1, completion: 0, model: "gpt-4o", priority: "batch" },
      { at: 1500, prompt: 800, maxTokens: 1024, completion: 240 },
      { at: 1500, prompt: 5, maxTokens: 10, completion: 10 },
    ]);
  });

  it.each([
    ['{"at": 0, "prompt": 1, "maxTokens": 2}', TypeError, /^line 2: "completion" is required$/],
    [
      '{"at": 0, "prompt": 1, "maxTokens": 2, "completion": 3}',
      RangeError,
      /^line 2: "completion" \(3\) must not exceed "maxTokens" \(2\)/,
    ],
    [
      '{"at": -1, "prompt": 1, "maxTokens": 2, "completion": 1}',
      RangeError,
      /^line 2: "at" must be a whole number >= 0, got -1$/,
    ],
    [
      '{"at": 0, "prompt": 1.5, "maxTokens": 2, "completion": 1}',
      RangeError,
      /^line 2: "prompt" must be a whole number >= 0/,
    ],
    [
      '{"at": 0, "prompt": 1, "maxTokens": 0, "completion": 0}',
      RangeError,
      /^line 2: "maxTokens" must be a whole number >= 1/,
    ],
    [
      '{"at": "0", "prompt": 1, "maxTokens": 2, "completion": 1}',
      TypeError,
      /^line 2: "at" must be a number, got string "0"$/,
    ],
    [
      '{"at": 0, "prompt": 1, "maxTokens": 2, "completion": 1, "model": 4}',
      TypeError,
      /^line 2: "model" must be a string/,
    ],
    [
      '{"at": 0, "prompt": 1, "maxTokens": 2, "completion": 1, "max_tokens": 2}',
      TypeError,
      /^line 2: unknown field "max_tokens"/,
    ],
    ["[1, 2]", TypeError, /^line 2: a call must be a JSON object, got an array$/],
    ['{"at": 0,', TypeError, /^line 2: not JSON/],
  ])("names the line of a bad call: %s", (line, type, message) => {
    const source = `{"at": 0, "prompt": 1, "maxTokens": 2, "completion": 1}\n${line}\n`;
    expect(() => parseWorkload(source)).toThrow(type);
    expect(() => parseWorkload(source)).toThrow(message);
  });

  it("refuses a file with no call", () => {
    expect(() => parseWorkload("\n  \n")).toThrow(/the workload has no call/);
  });
});
