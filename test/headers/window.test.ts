import { describe, expect, it } from "vitest";
import { DAY, HOUR, MINUTE, SECOND } from "../../src/headers/bounds.js";
import { parseGoDuration } from "../../src/headers/durations.js";
import { inferWindow, UNKNOWN_WINDOW, type WindowDecision } from "../../src/headers/window.js";

const AZURE: WindowDecision = { windowMs: MINUTE, windowSource: "dialect" };
const go = (s: string) => parseGoDuration(s);

describe("inferWindow", () => {
  it.each([
    // [limit, remaining, reset, window]: providers.md's triples, and others
    [5000, 4999, "12ms", MINUTE],
    [160000, 158866, "425ms", MINUTE],
    [60, 59, "1s", MINUTE], // "1s" may be anything from 0 to 2 s: the triple cannot tell, so the shortest it allows
    [60, 30, "30s", MINUTE],
    [14400, 14370, "2m59.56s", DAY],
    [100, 99, "10ms", SECOND],
    [20, 19, "500ms", 10 * SECOND],
    [1000, 999, "3.6s", HOUR],
  ])("%d / %d / %s -> %d ms", (limit, remaining, reset, windowMs) => {
    const w = inferWindow(limit, remaining, go(reset), UNKNOWN_WINDOW);
    expect(w.windowMs).toBe(windowMs);
    expect(w.windowSource).toBe(reset === "1s" ? "assumed" : "inferred");
  });

  it("rounds a window that is close to no plausible one up, never down", () => {
    // 100 / 50 / 45s is a 90 s window: a minute would refill too fast, so an hour.
    expect(inferWindow(100, 50, go("45s"), UNKNOWN_WINDOW)).toEqual({ windowMs: HOUR, windowSource: "inferred" });
    // 18000 / 17997 / 7.66s (Groq's tokens) says ~12.8 h: a day.
    expect(inferWindow(18000, 17997, go("7.66s"), UNKNOWN_WINDOW)).toEqual({ windowMs: DAY, windowSource: "inferred" });
  });

  it("keeps the fallback until the triple can tell", () => {
    expect(inferWindow(20, 20, go("0s"), AZURE)).toBe(AZURE); // full
    expect(inferWindow(20, 19, undefined, AZURE)).toBe(AZURE); // no reset
    expect(inferWindow(undefined, 19, go("500ms"), AZURE)).toBe(AZURE); // no limit
    expect(inferWindow(20, undefined, go("500ms"), AZURE)).toBe(AZURE); // no remaining
    expect(inferWindow(20, 19, go("0s"), AZURE)).toBe(AZURE); // reset says nothing
    expect(inferWindow(20, 18, go("1s"), AZURE)).toBe(AZURE); // 0..2 s: too coarse
  });

  it("assumes the shortest window the triple's lower bound allows when it exceeds the fallback", () => {
    // 100 / 99 / 2s: between 100 s and 300 s, so not Azure's minute, and no plausible window: an hour, not a day.
    expect(inferWindow(100, 99, go("2s"), AZURE)).toEqual({ windowMs: HOUR, windowSource: "assumed" });
  });

  it("assumes a day beyond every plausible window", () => {
    expect(inferWindow(150000, 149984, go("6m0s"), AZURE)).toEqual({ windowMs: DAY, windowSource: "assumed" });
  });

  it("takes a minute when nothing tells the window", () => {
    expect(UNKNOWN_WINDOW).toEqual({ windowMs: MINUTE, windowSource: "assumed" });
    expect(inferWindow(20, 20, go("0s"), UNKNOWN_WINDOW)).toBe(UNKNOWN_WINDOW); // a full bucket says nothing
    expect(inferWindow(20, 5, undefined, UNKNOWN_WINDOW)).toBe(UNKNOWN_WINDOW); // no reset
  });
});
