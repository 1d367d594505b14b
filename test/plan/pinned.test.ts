import { describe, expect, it } from "vitest";
import { plan } from "../../src/plan/index.js";

const seeds = { rpm: 3000, tpm: 1_000_000, prompt: 800, completion: 300, maxTokens: 4096 };

describe("plan: the numbers from the seeds", () => {
  it("puts the crossover at TPM / RPM = 333 tokens a request, and tpm binds above it", () => {
    const result = plan(seeds);
    expect(Math.round(result.crossover ?? 0)).toBe(333);
    expect(result.binding.dimension).toBe("tpm");
    expect(result.callsPerMinute).toBeCloseTo(1_000_000 / 1100);
  });

  it("calls under the crossover are bound by rpm", () => {
    expect(plan({ ...seeds, prompt: 100, completion: 100, maxTokens: 100 }).binding.dimension).toBe("rpm");
  });

  it("max_tokens 4096 for 300-token answers reserves ~13x, and says what 600 would admit at once", () => {
    const result = plan(seeds);
    expect(Math.floor(result.overReservation.factor)).toBe(13);
    expect(result.overReservation.callsAtOnce).toBe(Math.floor(1_000_000 / 4896));
    expect(result.overReservation.callsAtOnceExact).toBe(Math.floor(1_000_000 / 1100));
    expect(result.recommendations.join("\n")).toContain("max_tokens 600 would admit 714");
  });

  it("drains a burst of B = 500 through C = 100, r = 100/min in (B - C) / r = 4 minutes", () => {
    const result = plan({ rpm: 100, prompt: 800, completion: 300, maxTokens: 4096, burst: 500 });
    expect(result.burst).toEqual({ calls: 500, drainMs: 240_000, dimension: "rpm" });
  });

  it("counts every dimension in a drain: the slowest one sets it", () => {
    const result = plan({ rpm: 100, tpm: 100_000, prompt: 800, completion: 200, maxTokens: 1000, burst: 500 });
    // tpm: 100 calls/min at 1,000 tokens, but 55 fit at once (1,800 reserved each), so it outlasts rpm.
    expect(result.burst?.dimension).toBe("tpm");
    expect(result.burst?.drainMs).toBeGreaterThan(240_000);
  });

  it("holds the unused part of each reservation for the latency", () => {
    const result = plan({ ...seeds, latencyMs: 2000 });
    expect(result.inFlight.calls).toBeCloseTo((1_000_000 / 1100) * (2 / 60));
    expect(result.inFlight.heldTokens).toBeCloseTo(result.inFlight.calls * 3796);
    expect(result.overReservation.heldShare).toBeCloseTo(result.inFlight.heldTokens / 1_000_000);
  });

  it("bounds the rate by concurrency over latency (Little's law)", () => {
    const result = plan({ ...seeds, concurrency: 10, latencyMs: 30_000 });
    expect(result.binding.dimension).toBe("concurrency");
    expect(result.callsPerMinute).toBe(20);
  });

  it("returns a plain object that survives JSON", () => {
    const result = plan({ ...seeds, latencyMs: 2000, burst: 500 });
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe("plan: input errors, at once and typed", () => {
  it.each([
    [{ ...seeds, rpm: "3000" }, TypeError],
    [{ ...seeds, tmp: 5 }, TypeError],
    [{ prompt: 1, completion: 1, maxTokens: 1 }, TypeError],
    [{ ...seeds, rpm: -1 }, RangeError],
    [{ ...seeds, completion: 0 }, RangeError],
    [{ ...seeds, maxTokens: 200 }, RangeError],
    [{ ...seeds, burst: 1.5 }, RangeError],
    [{ ...seeds, concurrency: 4 }, RangeError],
    [{ ...seeds, tpm: 4000 }, RangeError],
    [{ itpm: 10, prompt: 0, completion: 1, maxTokens: 1 }, RangeError],
  ])("%o throws %o", (input, type) => {
    expect(() => plan(input as never)).toThrow(type);
  });
});
