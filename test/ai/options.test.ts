import { describe, expect, it } from "vitest";
import { rateLimitMiddleware, type RateLimitMiddlewareOptions } from "../../src/ai/index.js";
import { Limiter } from "../../src/index.js";

const limiter = new Limiter({ tpm: 10_000 });

describe("rateLimitMiddleware()", () => {
  it("returns a v3 middleware with wrapGenerate, wrapStream and the header-adding transformParams", () => {
    const middleware = rateLimitMiddleware(limiter);
    expect(middleware.specificationVersion).toBe("v3");
    expect(typeof middleware.wrapGenerate).toBe("function");
    expect(typeof middleware.wrapStream).toBe("function");
  });

  it.each([undefined, null, 42, {}, { run: () => 0 }])("throws TypeError at once for a limiter %o", (bad) => {
    const call = (): unknown => rateLimitMiddleware(bad as unknown as Limiter);
    expect(call).toThrow(TypeError);
    expect(call).toThrow(/^rateLimitMiddleware\(\): limiter must be a Limiter or a LimiterGroup, got /);
  });

  it.each<[string, unknown, ErrorConstructor, RegExp]>([
    ["options", null, TypeError, /options must be an object, got null/],
    ["options", [], TypeError, /options must be an object, got an array/],
    [
      "key",
      { defaultMaxTokens: 100 },
      TypeError,
      /unknown option "defaultMaxTokens"; the options are defaultMaxOutputTokens/,
    ],
    ["defaultMaxOutputTokens", { defaultMaxOutputTokens: "100" }, TypeError, /must be a number, got string "100"/],
    ["defaultMaxOutputTokens", { defaultMaxOutputTokens: -1 }, RangeError, /integer >= 0, got -1/],
    ["defaultMaxOutputTokens", { defaultMaxOutputTokens: 1.5 }, RangeError, /integer >= 0, got 1.5/],
    ["defaultMaxOutputTokens", { defaultMaxOutputTokens: Infinity }, RangeError, /integer >= 0, got Infinity/],
    ["estimate", { estimate: 100 }, TypeError, /estimate must be a function, got 100/],
    ["countCacheReads", { countCacheReads: "yes" }, TypeError, /countCacheReads must be a boolean/],
  ])("throws for a bad %s: %o", (_, options, type, message) => {
    const call = (): unknown => rateLimitMiddleware(limiter, options as RateLimitMiddlewareOptions);
    expect(call).toThrow(type);
    expect(call).toThrow(message);
  });

  it("takes every option", () => {
    expect(() =>
      rateLimitMiddleware(limiter, { defaultMaxOutputTokens: 0, estimate: () => 1, countCacheReads: true }),
    ).not.toThrow();
  });
});
