import { describe, expect, it } from "vitest";
import { MAX_HEADERS, MAX_VALUE_LENGTH } from "../../src/headers/bounds.js";
import { normalizeHeaders } from "../../src/headers/normalize.js";

const expected = new Map([
  ["x-ratelimit-limit-requests", "60"],
  ["x-ratelimit-remaining-requests", "59"],
]);

describe("normalizeHeaders", () => {
  it.each([
    ["fetch Headers", new Headers({ "X-RateLimit-Limit-Requests": "60", "x-ratelimit-remaining-requests": "59" })],
    ["a plain object in mixed case", { "X-RateLimit-Limit-Requests": "60", "X-RATELIMIT-REMAINING-REQUESTS": "59" }],
    ["a plain object with numbers", { "x-ratelimit-limit-requests": 60, "x-ratelimit-remaining-requests": 59 }],
    [
      "a Map",
      new Map([
        ["X-Ratelimit-Limit-Requests", "60"],
        ["x-ratelimit-remaining-requests", "59"],
      ]),
    ],
    [
      "an array of pairs",
      [
        ["x-ratelimit-limit-requests", "60"],
        ["X-RateLimit-Remaining-Requests", " 59 "],
      ] as const,
    ],
    [
      "a generator of pairs",
      (function* () {
        yield ["x-ratelimit-limit-requests", "60"] as const;
        yield ["x-ratelimit-remaining-requests", "59"] as const;
      })(),
    ],
  ])("reads %s", (_, input) => {
    expect(normalizeHeaders(input)).toEqual(expected);
  });

  it("joins arrays and repeated names with a comma, as Headers does", () => {
    const fromArray = normalizeHeaders({ "RateLimit-Policy": ['"a";q=1;w=1', '"b";q=2;w=2'] });
    const fromRepeats = normalizeHeaders([
      ["ratelimit-policy", '"a";q=1;w=1'],
      ["RateLimit-Policy", '"b";q=2;w=2'],
    ]);
    expect(fromArray.get("ratelimit-policy")).toBe('"a";q=1;w=1, "b";q=2;w=2');
    expect(fromRepeats).toEqual(fromArray);
  });

  it("skips undefined, null, non-finite and non-string values, and malformed entries", () => {
    const map = normalizeHeaders([
      ["a", undefined],
      ["b", null],
      ["c", Number.NaN],
      ["d", Number.POSITIVE_INFINITY],
      ["e", [1, 2] as unknown as string[]],
      "not a pair" as unknown as [string, string],
      [42 as unknown as string, "x"],
      ["f", "ok"],
    ]);
    expect(map).toEqual(new Map([["f", "ok"]]));
  });

  it("ignores inherited properties", () => {
    const input = Object.create({ "x-ratelimit-limit-requests": "60" }) as Record<string, string>;
    input["x-ratelimit-remaining-requests"] = "59";
    expect(normalizeHeaders(input)).toEqual(new Map([["x-ratelimit-remaining-requests", "59"]]));
  });

  it("accepts nothing", () => {
    expect(normalizeHeaders(undefined).size).toBe(0);
    expect(normalizeHeaders(null).size).toBe(0);
    expect(normalizeHeaders({}).size).toBe(0);
  });

  it("drops an over-long value, and a header whose repeats grow over-long, whole", () => {
    const long = "1".repeat(MAX_VALUE_LENGTH + 1);
    expect(normalizeHeaders({ a: long, b: "ok" })).toEqual(new Map([["b", "ok"]]));
    const parts = Array.from({ length: 40 }, () => ["a", "0123456789"] as const);
    expect(normalizeHeaders([...parts, ["a", "1"]]).has("a")).toBe(false);
    expect(normalizeHeaders({ a: [long] }).has("a")).toBe(false);
  });

  it("reads at most MAX_HEADERS entries of an endless iterable", () => {
    let pulled = 0;
    const endless: Iterable<[string, string]> = {
      *[Symbol.iterator]() {
        for (;;) {
          pulled++;
          yield [`h${pulled}`, "1"];
        }
      },
    };
    expect(normalizeHeaders(endless).size).toBe(MAX_HEADERS);
    expect(pulled).toBe(MAX_HEADERS);
  });

  it("reads at most MAX_HEADERS properties of a huge object", () => {
    let reads = 0;
    const huge: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) {
      Object.defineProperty(huge, `h${i}`, {
        enumerable: true,
        get: () => {
          reads++;
          return "1";
        },
      });
    }
    normalizeHeaders(huge);
    expect(reads).toBe(MAX_HEADERS);
  });
});
