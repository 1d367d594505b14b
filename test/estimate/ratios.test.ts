import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EstimateRatios, MAX_MODELS, MAX_RATIO, MIN_RATIO, RATIO_WINDOW } from "../../src/core/estimate-ratios.js";
import type { EstimateCorrectedEvent } from "../../src/index.js";

/** The correction as docs/estimates.md states it, written apart: the 95th percentile of the latest 64, bounded. */
function modelRatio(ratios: readonly number[], floor: number): number {
  if (ratios.length === 0) return 1;
  const latest = ratios.slice(-64).map((r) => Math.min(4, Math.max(0.5, r)));
  const sorted = [...latest].sort((a, b) => a - b);
  const rank = Math.ceil(0.95 * sorted.length);
  return Math.max(floor, sorted[rank - 1]!);
}

function learner(): { ratios: EstimateRatios; events: EstimateCorrectedEvent[] } {
  const events: EstimateCorrectedEvent[] = [];
  return { ratios: new EstimateRatios(() => ({ emit: (event) => events.push(event) })), events };
}

describe("EstimateRatios", () => {
  it("corrects by the largest ratio seen while few calls were seen, then by the 95th percentile", () => {
    const { ratios } = learner();
    expect(ratios.corrected("messages", "claude", 100)).toBe(100);
    ratios.learn("messages", "claude", 100, 120);
    ratios.learn("messages", "claude", 100, 110);
    expect(ratios.ratioOf("messages", "claude")).toBe(1.2);
    expect(ratios.corrected("messages", "claude", 100)).toBe(120);
    // 100 more: 1.00 .. 1.99 in turn; the latest 64 are 1.36 .. 1.99, of which the 61st is 1.96.
    for (let i = 0; i < 100; i++) ratios.learn("messages", "claude", 100, 100 + i);
    expect(ratios.ratioOf("messages", "claude")).toBeCloseTo(1.96, 10);
  });

  it("a model not seen yet takes its kind's ratio", () => {
    const { ratios } = learner();
    ratios.learn("messages", "claude-a", 100, 130);
    expect(ratios.ratioOf("messages", "claude-b")).toBe(1.3);
    expect(ratios.ratioOf("chat.completions", "claude-a")).toBe(1);
  });

  it("never lowers an OpenAI-style estimate (its provider charges on characters), lowers Anthropic's", () => {
    const { ratios } = learner();
    ratios.learn("chat.completions", "gpt", 100, 80);
    ratios.learn("messages", "claude", 100, 80);
    ratios.learn("anthropic.messages", "claude", 100, 80);
    expect(ratios.ratioOf("chat.completions", "gpt")).toBe(1);
    expect(ratios.ratioOf("messages", "claude")).toBe(0.8);
    expect(ratios.ratioOf("anthropic.messages", "claude")).toBe(0.8);
  });

  it("clamps a usage beyond the bounds, ignores one that is not a count, and tiny estimates", () => {
    const { ratios } = learner();
    ratios.learn("messages", "m", 100, 1e12);
    expect(ratios.ratioOf("messages", "m")).toBe(MAX_RATIO);
    const { ratios: low } = learner();
    low.learn("messages", "m", 100, 0);
    expect(low.ratioOf("messages", "m")).toBe(MIN_RATIO);
    const { ratios: none } = learner();
    for (const counted of [Number.NaN, -1, Infinity, "200", undefined, null]) none.learn("messages", "m", 100, counted);
    none.learn("messages", "m", 10, 40);
    none.learn("messages", "m", Number.NaN, 40);
    expect(none.readings()).toBeUndefined();
  });

  it("keeps at most MAX_MODELS models; further models learn and use their kind's ratio", () => {
    const { ratios } = learner();
    for (let i = 0; i < MAX_MODELS + 50; i++) ratios.learn("messages", `model-${i}`, 100, 150);
    const keys = Object.keys(ratios.readings()!);
    expect(keys).toHaveLength(MAX_MODELS + 1);
    expect(ratios.ratioOf("messages", `model-${MAX_MODELS + 10}`)).toBe(1.5);
    ratios.learn("messages", "x".repeat(100_000), 100, 150);
    expect(Object.keys(ratios.readings()!).every((key) => key.length < 200)).toBe(true);
  });

  it("tells each change once, with the ratio before", () => {
    const { ratios, events } = learner();
    ratios.learn("messages", "m", 100, 120);
    ratios.learn("messages", "m", 100, 110);
    expect(events).toEqual([
      { kind: "messages", model: undefined, ratio: 1.2, previous: 1, samples: 1 },
      { kind: "messages", model: "m", ratio: 1.2, previous: 1, samples: 1 },
    ]);
  });

  it("learns from the settle of an estimate it remembered, or of the copy carried for it", () => {
    const { ratios } = learner();
    const mine = { input: 100, output: 10 };
    const copy = { input: 100, output: 10 };
    ratios.remember(mine, "messages", "m", 100);
    ratios.carry(mine, copy);
    ratios.settled({ input: 100, output: 10 }, 300);
    expect(ratios.readings()).toBeUndefined();
    ratios.settled(copy, 130);
    expect(ratios.ratioOf("messages", "m")).toBe(1.3);
  });

  it("matches the model on any sequence of calls (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 16, max: 5000 }), fc.double({ min: 0, max: 10, noNaN: true })), {
          maxLength: 3 * RATIO_WINDOW,
        }),
        fc.constantFrom("messages", "chat.completions"),
        (calls, kind) => {
          const { ratios, events } = learner();
          const seen: number[] = [];
          for (const [estimated, factor] of calls) {
            const counted = Math.round(estimated * factor);
            ratios.learn(kind, "m", estimated, counted);
            seen.push(counted / estimated);
          }
          const floor = kind === "messages" ? 0.5 : 1;
          expect(ratios.ratioOf(kind, "m")).toBe(modelRatio(seen, floor));
          expect(ratios.corrected(kind, "m", 1000)).toBe(Math.ceil(1000 * modelRatio(seen, floor)));
          for (const event of events) expect(event.ratio).not.toBe(event.previous);
        },
      ),
    );
  });
});
