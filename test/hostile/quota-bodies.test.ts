import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyFailure } from "../../src/headers/index.js";
import { numRuns } from "../properties/runs.js";

/** Anything a sender may put where a Gemini violation's fields go. */
const field = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.constantFrom("PerDay", "PerMinute", "per_day_requests", "token_count", "1", "0", "-1", "1e999", "2.5", " 7 "),
  fc.double(),
  fc.integer(),
  fc.constant(null),
  fc.object({ maxDepth: 1 }),
);

const violation = fc.record({ quotaId: field, quotaMetric: field, quotaValue: field }, { requiredKeys: [] });

const body = fc.record({
  error: fc.record({
    code: fc.constantFrom(429, "429", undefined),
    status: fc.constantFrom("RESOURCE_EXHAUSTED", undefined),
    message: fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom(
        "Too many tokens per day, please wait before trying again.",
        "exceeds your concurrency limit of 99999999999999999999",
        "Quota exceeded for aiplatform.googleapis.com/" + "x".repeat(500),
      ),
    ),
    details: fc.array(
      fc.oneof(
        fc.record({
          "@type": fc.constant("type.googleapis.com/google.rpc.QuotaFailure"),
          violations: fc.array(violation),
        }),
        fc.record({ "@type": field, violations: field }),
        field,
      ),
      { maxLength: 20 },
    ),
  }),
});

describe("429 bodies from a hostile sender", () => {
  it("classify without throwing; a quota's value is whole, at least 1 and bounded; a day's zone only with perDay", () => {
    fc.assert(
      fc.property(body, fc.boolean(), (b, asText) => {
        const failure = classifyFailure({ status: 429, body: asText ? JSON.stringify(b) : b });
        expect(failure.kind).toBe("rate");
        if (failure.quotaValue !== undefined) {
          expect(Number.isInteger(failure.quotaValue)).toBe(true);
          expect(failure.quotaValue).toBeGreaterThanOrEqual(1);
          expect(failure.quotaValue).toBeLessThanOrEqual(1e15);
        }
        expect([undefined, "requests", "tokens", "concurrency"]).toContain(failure.dimension);
        expect([undefined, "minute", "day"]).toContain(failure.quotaWindow);
        if (failure.dayTimeZone !== undefined) expect(failure.perDay).toBe(true);
        if (failure.quotaWindow === "day") expect(failure.perDay).toBe(true);
      }),
      { numRuns: numRuns(300) },
    );
  });
});
