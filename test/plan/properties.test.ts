import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plan, type PlanInput } from "../../src/plan/index.js";

const LIMITS = ["rpm", "tpm", "rpd", "tpd", "itpm", "otpm"] as const;

/** Inputs whose calls fit every bucket: each limit well above a call's reservation. */
const inputs = fc
  .record({
    prompt: fc.integer({ min: 1, max: 5000 }),
    completion: fc.integer({ min: 1, max: 2000 }),
    extra: fc.integer({ min: 0, max: 8000 }),
    latencyMs: fc.integer({ min: 0, max: 120_000 }),
    limits: fc.uniqueArray(fc.constantFrom(...LIMITS), { minLength: 1 }),
    scale: fc.double({ min: 1, max: 1000, noNaN: true }),
  })
  .map(({ prompt, completion, extra, latencyMs, limits, scale }): PlanInput => {
    const input: PlanInput = { prompt, completion, maxTokens: completion + extra, latencyMs };
    for (const name of limits) input[name] = name.startsWith("r") ? Math.ceil(scale * 10) : Math.ceil(scale * 20_000);
    return input;
  });

describe("plan: properties", () => {
  it("the sustainable rate never exceeds what any budget's refill allows a call's consumption", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const result = plan(input);
        for (const d of result.dimensions) {
          expect(result.callsPerMinute * d.consumed).toBeLessThanOrEqual(
            ((d.limit * 60_000) / d.windowMs) * (1 + 1e-12),
          );
        }
      }),
    );
  });

  it("raising a limit never lowers the rate", () => {
    fc.assert(
      fc.property(inputs, fc.double({ min: 1, max: 10, noNaN: true }), (input, factor) => {
        const before = plan(input).callsPerMinute;
        for (const name of LIMITS) {
          const limit = input[name];
          if (limit !== undefined)
            expect(plan({ ...input, [name]: limit * factor }).callsPerMinute).toBeGreaterThanOrEqual(before);
        }
      }),
    );
  });

  it("with latency 0 nothing is held in flight", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const result = plan({ ...input, latencyMs: 0 });
        expect(result.inFlight).toEqual({ calls: 0, heldTokens: 0 });
        expect(result.overReservation.heldShare).toBe(0);
      }),
    );
  });

  it("max_tokens = completion loses nothing to over-reserving", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        expect(plan({ ...input, maxTokens: input.completion }).overReservation.burstShareLost).toBe(0);
      }),
    );
  });

  it("a larger burst never drains sooner", () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 5000 }), (input, a, b) => {
        const [small, large] = a < b ? [a, b] : [b, a];
        expect(plan({ ...input, burst: large }).burst?.drainMs).toBeGreaterThanOrEqual(
          plan({ ...input, burst: small }).burst?.drainMs ?? 0,
        );
      }),
    );
  });
});
