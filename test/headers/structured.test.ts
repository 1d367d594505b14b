import { describe, expect, it } from "vitest";
import { parseList } from "../../src/headers/structured.js";

const members = (field: string) =>
  parseList(field)?.map((m) => ({ value: m.value, params: Object.fromEntries(m.params) }));

describe("parseList (RFC 8941 Lists)", () => {
  it("reads the draft's RateLimit-Policy example", () => {
    expect(members('"burst";q=100;w=60,"daily";q=1000;w=86400')).toEqual([
      { value: "burst", params: { q: 100, w: 60 } },
      { value: "daily", params: { q: 1000, w: 86400 } },
    ]);
  });

  it("reads RateLimit, units, tokens, booleans, byte sequences, escapes and whitespace", () => {
    expect(members('"default";r=50;t=30')).toEqual([{ value: "default", params: { r: 50, t: 30 } }]);
    expect(members('"c";q=5;qu="concurrent-requests", tok;flag;pk=:cHsxMjM=:;x=?0, "a\\"b\\\\";q=1.5')).toEqual([
      { value: "c", params: { q: 5, qu: "concurrent-requests" } },
      { value: "tok", params: { flag: true, pk: "cHsxMjM=", x: false } },
      { value: 'a"b\\', params: { q: 1.5 } },
    ]);
    expect(members("  10;w=1 ,\t50;w=60")).toEqual([
      { value: 10, params: { w: 1 } },
      { value: 50, params: { w: 60 } },
    ]);
    expect(members("-5")).toEqual([{ value: -5, params: {} }]);
    expect(members("")).toEqual([]);
  });

  it.each([
    '"unterminated',
    '"bad\\escape"',
    '"a";Q=1',
    '"a";q=',
    '"a",',
    '"a" "b"',
    '("a" "b")',
    '"a";q=1;;w=2',
    ":unterminated",
    "?2",
    "-",
    '"caf\u00e9"',
    Array.from({ length: 33 }, (_, i) => `"p${i}";q=1`).join(","),
    `"a"${";k=1".repeat(17)}`,
  ])("fails the whole field on %j", (field) => {
    expect(parseList(field)).toBeUndefined();
  });
});
