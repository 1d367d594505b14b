import { describe, expect, it } from "vitest";
import { parseGoDuration } from "../../src/headers/durations.js";
import { parseDecimal } from "../../src/headers/numbers.js";

describe("parseGoDuration", () => {
  it.each([
    ["1s", 1_000, 1_000],
    ["6m0s", 360_000, 1_000],
    ["120ms", 120, 1],
    ["12ms", 12, 1],
    ["425ms", 425, 1],
    ["1h2m3.5s", 3_723_500, 100],
    ["2m59.56s", 179_560, 10],
    ["16m17.764s", 977_764, 1],
    ["7.66s", 7_660, 10],
    ["0", 0, 0],
    ["0s", 0, 1_000],
    ["1500us", 1.5, 0.001],
    ["1500\u00b5s", 1.5, 0.001],
    ["1500\u03bcs", 1.5, 0.001],
    ["2000000ns", 2, 1e-6],
    [".5s", 500, 100],
  ])("%s -> %d ms (precision %d ms)", (text, ms, resolutionMs) => {
    const d = parseGoDuration(text);
    expect(d?.ms).toBeCloseTo(ms, 9);
    expect(d?.resolutionMs).toBeCloseTo(resolutionMs, 12);
  });

  it.each(["", "1", "-1s", "+1s", "1x", "s", "1.s.", "1 s", "1sm", "1e3s", ".s", "1h-2m", "9999999h"])(
    "rejects %j",
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );
});

describe("parseDecimal", () => {
  it.each([
    ["28", 28, 1],
    ["11.382867097854614", 11.382867097854614, 1e-15],
    ["0.5", 0.5, 0.1],
    ["1788220800000", 1788220800000, 1],
  ])("%s", (text, value, step) => {
    expect(parseDecimal(text)).toMatchObject({ value, step });
  });

  it.each(["", ".", "-1", "1e3", "1,000", " 1", "NaN", "Infinity", "0x10", "1..2"])("rejects %j", (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });
});
