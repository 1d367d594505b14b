import { describe, expect, it } from "vitest";
import { parseHttpDate, parseRfc3339 } from "../../src/headers/timestamps.js";

const SUN_1994 = Date.UTC(1994, 10, 6, 8, 49, 37);

describe("parseRfc3339", () => {
  it.each([
    ["2025-02-24T22:25:32Z", Date.UTC(2025, 1, 24, 22, 25, 32), 1000],
    ["2025-02-24t22:25:32z", Date.UTC(2025, 1, 24, 22, 25, 32), 1000],
    ["2025-02-24 22:25:32Z", Date.UTC(2025, 1, 24, 22, 25, 32), 1000],
    ["2025-02-24T22:25:32.250Z", Date.UTC(2025, 1, 24, 22, 25, 32, 250), 1],
    ["2025-02-24T22:25:32.5Z", Date.UTC(2025, 1, 24, 22, 25, 32, 500), 100],
    ["2025-02-24T23:25:32+01:00", Date.UTC(2025, 1, 24, 22, 25, 32), 1000],
    ["2025-02-24T20:55:32-01:30", Date.UTC(2025, 1, 24, 22, 25, 32), 1000],
    ["2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29), 1000],
  ])("%s", (text, epochMs, resolutionMs) => {
    const t = parseRfc3339(text);
    expect(t?.epochMs).toBeCloseTo(epochMs, 6);
    expect(t?.resolutionMs).toBeCloseTo(resolutionMs, 9);
  });

  it.each([
    "",
    "2025-02-24",
    "2025-02-24T22:25:32",
    "2025-02-24T22:25:32.Z",
    "2025-02-30T00:00:00Z",
    "2025-13-01T00:00:00Z",
    "2025-02-24T24:00:00Z",
    "2025-02-24T22:25:32+0100",
    "2025-02-24T22:25:32Zjunk",
    "1969-12-31T23:59:59Z",
    "20250224T222532Z",
  ])("rejects %j", (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });
});

describe("parseHttpDate", () => {
  it.each([
    ["Sun, 06 Nov 1994 08:49:37 GMT", SUN_1994],
    ["Sunday, 06-Nov-94 08:49:37 GMT", SUN_1994],
    ["Sun Nov  6 08:49:37 1994", SUN_1994],
    ["Mon, 24 Feb 2025 22:25:02 GMT", Date.UTC(2025, 1, 24, 22, 25, 2)],
    ["Tuesday, 01-Jan-30 00:00:00 GMT", Date.UTC(2030, 0, 1)],
  ])("%s", (text, epochMs) => {
    expect(parseHttpDate(text)).toBe(epochMs);
  });

  it.each([
    "",
    "1",
    "120",
    "Sun, 06 Nov 1994 08:49:37 UTC",
    "Sun, 6 Nov 1994 08:49:37 GMT",
    "Sun, 06 nov 1994 08:49:37 GMT",
    "Sun, 31 Feb 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 8:49:37 GMT",
    "Sun 06 Nov 1994 08:49:37 GMT",
    "2025-02-24T22:25:32Z",
  ])("rejects %j", (text) => {
    expect(parseHttpDate(text)).toBeUndefined();
  });
});
