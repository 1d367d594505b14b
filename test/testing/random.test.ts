import { describe, expect, it } from "vitest";
import { between, seededRandom } from "../../src/testing/index.js";

describe("seededRandom", () => {
  it("draws the same numbers for the same seed, and others for another", () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const drawsA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(drawsA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(drawsA);
    for (const x of drawsA) expect(x >= 0 && x < 1).toBe(true);
  });

  it("between stays within its bounds and reaches both", () => {
    const random = seededRandom(1);
    const seen = new Set(Array.from({ length: 200 }, () => between(random, 3, 5)));
    expect([...seen].sort()).toEqual([3, 4, 5]);
  });
});
