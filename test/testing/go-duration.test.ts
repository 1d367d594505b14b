import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGoDuration } from "../../src/testing/go-duration.js";
import { parseGoDurationMs } from "./parse-go-duration.js";

describe("formatGoDuration", () => {
  it.each([
    [0, "0s"],
    [120, "120ms"],
    [12, "12ms"],
    [425.25, "425ms"],
    [999.4, "999ms"],
    [999.6, "1s"],
    [1000, "1s"],
    [7660, "7.66s"],
    [2754, "2.754s"],
    [59_000, "59s"],
    [60_000, "1m0s"],
    [360_000, "6m0s"],
    [179_560, "2m59.56s"],
    [977_764, "16m17.764s"],
    [3_600_000, "1h0m0s"],
    [3_723_500, "1h2m3.5s"],
    [90_061_001, "25h1m1.001s"],
  ])("%s ms -> %s (the shapes OpenAI and Groq send)", (ms, expected) => {
    expect(formatGoDuration(ms)).toBe(expected);
  });

  it("never formats a negative duration", () => {
    expect(formatGoDuration(-5)).toBe("0s");
  });

  it("round-trips through a Go duration parser to the nearest millisecond", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (ms) => {
        const text = formatGoDuration(ms);
        expect(text).toMatch(/^(\d+h)?(\d+m)?(\d+(\.\d+)?(ms|s))$/);
        expect(parseGoDurationMs(text)).toBe(Math.round(ms));
      }),
    );
  });
});
