import { describe, expect, it } from "vitest";
import { clock } from "../../src/simulate/format.js";

describe("clock", () => {
  it.each([
    [0, false, "0:00"],
    [59_960, true, "1:00.0"],
    [59_999, false, "0:59"],
    [754_300, true, "12:34.3"],
    [3_600_000, false, "1:00:00"],
    [43_205_300, true, "12:00:05.3"],
  ])("%d ms (tenths %s) reads %s", (ms, tenths, text) => {
    expect(clock(ms, tenths)).toBe(text);
  });
});
