import { describe, expect, it } from "vitest";
import { parseRateLimitHeaders } from "../../src/headers/index.js";

const SERVER_NOW = Date.UTC(2025, 1, 24, 22, 25, 2);
const DATE = "Mon, 24 Feb 2025 22:25:02 GMT";
const ANTHROPIC = {
  "anthropic-ratelimit-input-tokens-limit": "80000",
  "anthropic-ratelimit-input-tokens-remaining": "78000",
  "anthropic-ratelimit-input-tokens-reset": "2025-02-24T22:25:32Z",
};

describe("timestamps and the Date header", () => {
  it("reads timestamps against the server's Date, so a skewed client clock does not matter", () => {
    for (const skewMs of [-600_000, -5_000, 0, 5_000, 3_600_000]) {
      const view = parseRateLimitHeaders({ ...ANTHROPIC, Date: DATE }, { wallNow: SERVER_NOW + skewMs });
      expect(view.serverDate).toBe(SERVER_NOW);
      expect(view.dimensions.itpm?.resetMs).toBe(30_000);
    }
  });

  it("falls back to wallNow without a Date header", () => {
    expect(parseRateLimitHeaders(ANTHROPIC, { wallNow: SERVER_NOW + 10_000 }).dimensions.itpm?.resetMs).toBe(20_000);
    // A client clock ahead of the reset reads it as already past: 0, never negative.
    expect(parseRateLimitHeaders(ANTHROPIC, { wallNow: SERVER_NOW + 600_000 }).dimensions.itpm?.resetMs).toBe(0);
  });

  it("ignores a malformed Date header and a non-finite wallNow", () => {
    const view = parseRateLimitHeaders({ ...ANTHROPIC, date: "yesterday" }, { wallNow: SERVER_NOW });
    expect(view.serverDate).toBeUndefined();
    expect(view.dimensions.itpm?.resetMs).toBe(30_000);
    const now = parseRateLimitHeaders(ANTHROPIC, { wallNow: Number.NaN });
    expect(now.dimensions.itpm?.resetMs).toBe(0); // read against Date.now(), long after 2025-02
  });

  it("turns epoch seconds and HTTP dates in a reset into durations too", () => {
    const headers = {
      date: DATE,
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "30",
      "x-ratelimit-reset-requests": String(SERVER_NOW / 1000 + 30),
      "x-ratelimit-limit-tokens": "1000",
      "x-ratelimit-remaining-tokens": "1000",
      "x-ratelimit-reset-tokens": "Mon, 24 Feb 2025 22:26:02 GMT",
    };
    const view = parseRateLimitHeaders(headers, { provider: "openai" });
    expect(view.dimensions.rpm?.resetMs).toBe(30_000);
    expect(view.dimensions.tpm?.resetMs).toBe(60_000);
  });
});

describe("retryAfterMs and shouldRetry", () => {
  it.each([
    [{ "retry-after-ms": "1500.5" }, 1500.5],
    [{ "retry-after": "20" }, 20_000],
    [{ "retry-after": "1.5" }, 1_500],
    // The longer of the two (the SDKs would read retry-after-ms alone).
    [{ "retry-after-ms": "250", "retry-after": "20" }, 20_000],
    [{ "Retry-After": "1", "Retry-After-Ms": "0" }, 1_000],
    [{ "retry-after-ms": "soon", "retry-after": "20" }, 20_000],
    [{ "retry-after": "Mon, 24 Feb 2025 22:25:32 GMT", date: DATE }, 30_000],
    [{ "retry-after": "Mon, 24 Feb 2025 22:25:32 GMT" }, 30_000],
    [{ "retry-after": "Mon, 24 Feb 2025 22:00:00 GMT" }, 0],
  ])("%j -> %d ms", (headers, ms) => {
    expect(parseRateLimitHeaders(headers, { wallNow: SERVER_NOW }).retryAfterMs).toBe(ms);
  });

  it.each([
    { "retry-after": "-1" },
    { "retry-after": "soon" },
    { "retry-after": "1e3" },
    { "retry-after-ms": "Infinity" },
    { "retry-after-ms": "-5" },
    { "retry-after-ms": "NaN" },
  ])("drops %j", (headers) => {
    expect(parseRateLimitHeaders(headers).retryAfterMs).toBeUndefined();
  });

  it.each([
    { "retry-after": "99999999999" },
    { "retry-after": String(366 * 86_400) },
    { "retry-after-ms": "9".repeat(200) },
    { "retry-after": "Fri, 01 Jan 2100 00:00:00 GMT" },
  ])("bounds %j at a month", (headers) => {
    expect(parseRateLimitHeaders(headers, { wallNow: SERVER_NOW }).retryAfterMs).toBe(31 * 86_400_000);
  });

  it("IETF: an exhausted policy's t is the hint, but Retry-After takes precedence", () => {
    const headers = {
      "RateLimit-Policy": '"burst";q=100;w=60,"daily";q=1000;w=86400',
      RateLimit: '"burst";r=0;t=30, "daily";r=0;t=3600',
    };
    expect(parseRateLimitHeaders(headers).retryAfterMs).toBe(3_600_000);
    expect(parseRateLimitHeaders({ ...headers, "Retry-After": "5" }).retryAfterMs).toBe(5_000);
    // A RateLimit member naming no policy gives no dimension, but still a hint.
    expect(parseRateLimitHeaders({ RateLimit: '"default";r=0;t=30' })).toEqual({
      provider: "ietf",
      dimensions: {},
      retryAfterMs: 30_000,
    });
    expect(parseRateLimitHeaders({ RateLimit: '"default";r=50;t=30' })).toEqual({ provider: "ietf", dimensions: {} });
    const old = { "RateLimit-Limit": "10", "RateLimit-Remaining": "0", "RateLimit-Reset": "7" };
    expect(parseRateLimitHeaders(old).retryAfterMs).toBe(7_000);
  });

  it.each([
    ["true", true],
    ["false", false],
    ["TRUE", true],
    ["maybe", undefined],
  ] as const)("x-should-retry: %s", (value, expected) => {
    expect(parseRateLimitHeaders({ "x-should-retry": value }).shouldRetry).toBe(expected);
  });
});

describe("malformed and absurd values", () => {
  it("clamps remaining to the limit", () => {
    const view = parseRateLimitHeaders(
      { "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "600" },
      { provider: "openai" },
    );
    expect(view.dimensions.rpm).toMatchObject({ limit: 60, remaining: 60 });
  });

  it.each(["-1", "NaN", "Infinity", "1e400", "2e15", "", "12abc", "0x10", "1,000"])(
    "drops the count %j and keeps the rest of the dimension",
    (bad) => {
      const view = parseRateLimitHeaders(
        {
          "x-ratelimit-limit-requests": bad,
          "x-ratelimit-remaining-requests": "5",
          "x-ratelimit-reset-requests": "1s",
        },
        { provider: "openai" },
      );
      expect(view.dimensions.rpm).toEqual({
        unit: "requests",
        remaining: 5,
        resetMs: 1_000,
        windowMs: 60_000,
        windowSource: "dialect",
      });
    },
  );

  it.each(["-1s", "soon", "1e3", "400d", "9999999999h", "2025-02-30T00:00:00Z", "3000-01-01T00:00:00Z"])(
    "drops the reset %j",
    (bad) => {
      const view = parseRateLimitHeaders(
        {
          "x-ratelimit-limit-requests": "60",
          "x-ratelimit-remaining-requests": "5",
          "x-ratelimit-reset-requests": bad,
        },
        { provider: "openai" },
      );
      expect(view.dimensions.rpm?.resetMs).toBeUndefined();
    },
  );

  it("drops a dimension with neither limit nor remaining", () => {
    const view = parseRateLimitHeaders({ "x-ratelimit-reset-requests": "1s" }, { provider: "openai" });
    expect(view.dimensions).toEqual({});
  });

  it("ignores a malformed IETF field whole, and negative IETF numbers", () => {
    expect(parseRateLimitHeaders({ "RateLimit-Policy": '"a";q=10;w=60,' }).dimensions).toEqual({});
    expect(parseRateLimitHeaders({ "RateLimit-Policy": '"a";q=-10;w=-60' }).dimensions).toEqual({});
  });

  it("returns an empty view for no headers at all", () => {
    expect(parseRateLimitHeaders(undefined)).toEqual({ provider: "unknown", dimensions: {} });
    expect(parseRateLimitHeaders({}, { provider: "groq" })).toEqual({ provider: "groq", dimensions: {} });
  });

  it("rejects a provider it does not know (a typo would read the wrong dialect)", () => {
    for (const provider of ["toString", "unknown", "opneai"]) {
      expect(() =>
        parseRateLimitHeaders({ "x-ratelimit-limit-requests": "60" }, { provider: provider as never }),
      ).toThrow(TypeError);
    }
  });
});
