import { describe, expect, it } from "vitest";
import { renderReport, simulate, type SimulationRun, type WorkloadCall } from "../../src/simulate/index.js";
import type { SimulateProgress } from "../../src/simulate/options.js";

/** 60 calls at once onto 20 RPM: a burst of 20, then one call every 3 s; tokens never bind. */
const BURST: WorkloadCall[] = Array.from({ length: 60 }, () => ({
  at: 0,
  prompt: 200,
  maxTokens: 300,
  completion: 100,
}));
const BUDGETS = { rpm: 20, tpm: 20_000 } as const;
/** Latency of the default: 300 ms + 15 ms a token. */
const LATENCY_MS = 300 + 15 * 100;

/** Checks what every run's samples must show, whatever the client. */
function checkSamples(run: SimulationRun, sampleMs: number): void {
  run.samples.forEach((s, i) => {
    expect(s.t).toBe(i * sampleMs);
    const before = run.samples[i - 1];
    if (before)
      for (const key of ["arrived", "sent", "rejected", "served"] as const)
        expect(s[key]).toBeGreaterThanOrEqual(before[key]);
    expect(s.sent).toBe(s.rejected + s.served + s.inFlight);
    for (const [name, level] of Object.entries(s.levels)) expect(level).toBeLessThanOrEqual(s.capacities[name]!);
  });
  const last = run.samples.at(-1)!;
  expect(last.t).toBeGreaterThanOrEqual(run.summary.makespanMs);
  expect(last.t - sampleMs).toBeLessThan(run.summary.makespanMs);
  expect(last.served).toBe(run.summary.completed);
}

describe("simulate", () => {
  it("runs the limiter without a 429 close to the bound, while the naive client draws them", async () => {
    const result = await simulate(BURST, { ...BUDGETS, sampleMs: 500 });
    // 40 calls beyond the burst of 20, at 20 a minute: 2 minutes; then the last answer.
    expect(result.bound).toEqual({ ms: 120_000, binding: "rpm" });
    const { limiter, naive } = result;
    expect(limiter.summary).toMatchObject({ calls: 60, completed: 60, failed: 0, sent: 60, rejected: 0 });
    expect(limiter.summary.makespanMs).toBeGreaterThanOrEqual(120_000 + LATENCY_MS);
    expect(limiter.summary.makespanMs).toBeLessThan(125_000);
    expect(limiter.outcomes.every((o) => o.ok && o.attempts === 1)).toBe(true);
    expect(naive.summary.rejected).toBeGreaterThan(0);
    expect(naive.summary.sent).toBe(naive.summary.rejected + naive.summary.completed);
    checkSamples(limiter, 500);
    checkSamples(naive, 500);
    // The limiter's queue holds what the burst cannot take; rpm drains to 0 and the queue empties.
    expect(Math.max(...limiter.samples.map((s) => s.waiting))).toBeGreaterThanOrEqual(35);
    expect(Math.min(...limiter.samples.map((s) => s.levels.rpm!))).toBe(0);
    expect(limiter.samples.at(-1)!.waiting).toBe(0);
    expect(naive.samples.every((s) => Object.keys(s.levels).length === 0)).toBe(true);
    // The key's own levels, in both runs: full at the start, its rpm spent by the burst.
    for (const run of [limiter, naive]) {
      expect(run.samples[0]!.providerLevels).toEqual({ rpm: 20, tpm: 20_000 });
      expect(Math.min(...run.samples.map((s) => s.providerLevels.rpm!))).toBeLessThan(1);
    }
    expect(result.workload).toEqual({ calls: 60, lastArrivalMs: 0, tokensUsed: 18_000, tokensReserved: 30_000 });
  });

  it("gives up on a call that no retry can help, and counts it failed", async () => {
    // Two calls, the second larger than the whole TPM: the limiter refuses it at once, the key answers 429.
    const calls: WorkloadCall[] = [
      { at: 0, prompt: 100, maxTokens: 100, completion: 50 },
      { at: 10, prompt: 2_000, maxTokens: 100, completion: 50 },
    ];
    const { limiter, naive } = await simulate(calls, { tpm: 1_000, latencyMs: 0, sampleMs: 100 });
    expect(limiter.summary).toMatchObject({ completed: 1, failed: 1, rejected: 0, sent: 1 });
    expect(limiter.outcomes[1]).toMatchObject({ ok: false, attempts: 0 });
    expect(naive.summary).toMatchObject({ completed: 1, failed: 1, rejected: 1 });
  });

  it("serves the workload's priorities in order: the option's, else the order they first arrive", async () => {
    // 30 batch calls at once onto 20 RPM (a burst of 20, then one every 3 s), an interactive one 10 ms later.
    const calls: WorkloadCall[] = [
      ...Array.from({ length: 30 }, () => ({ at: 0, prompt: 10, maxTokens: 10, completion: 5, priority: "batch" })),
      { at: 10, prompt: 10, maxTokens: 10, completion: 5, priority: "interactive" },
    ];
    const options = { rpm: 20, latencyMs: 0, sampleMs: 1_000 };
    const ends = ({ limiter }: { limiter: SimulationRun }) => {
      const batch = limiter.outcomes.slice(0, 30).map((o) => o.endedAt);
      return { interactive: limiter.outcomes[30]!.endedAt, queuedBatch: batch.slice(20), all: limiter.outcomes };
    };
    const urgent = ends(await simulate(calls, { ...options, priorities: ["interactive", "batch"] }));
    // The first slot after the burst: before every batch call that queued.
    expect(urgent.interactive).toBeLessThan(4_000);
    expect(urgent.interactive).toBeLessThan(Math.min(...urgent.queuedBatch));
    const arrival = ends(await simulate(calls, options)); // batch arrived first: the more urgent class
    expect(arrival.interactive).toBeGreaterThan(Math.max(...arrival.queuedBatch));
    expect([...urgent.all, ...arrival.all].every((o) => o.ok)).toBe(true);
  });

  it("refuses priorities that are not names, or a call whose priority is not among them", async () => {
    const calls: WorkloadCall[] = [{ at: 0, prompt: 1, maxTokens: 1, completion: 1, priority: "batch" }];
    await expect(simulate(calls, { rpm: 1, priorities: ["interactive"] })).rejects.toThrow(
      /call 1's priority "batch" is not one of the priorities/,
    );
    await expect(simulate(calls, { rpm: 1, priorities: ["batch", "batch"] })).rejects.toThrow(TypeError);
    await expect(simulate(calls, { rpm: 1, priorities: "batch" as never })).rejects.toThrow(TypeError);
  });

  it("reports progress for both runs, in simulated time", async () => {
    const seen: SimulateProgress[] = [];
    const result = await simulate(BURST.slice(0, 25), { ...BUDGETS, sampleMs: 1_000, onProgress: (p) => seen.push(p) });
    const runs = [...new Set(seen.map((p) => p.run))];
    expect(runs).toEqual(["limiter", "no limiter"]);
    const ofLimiter = seen.filter((p) => p.run === "limiter");
    expect(ofLimiter.map((p) => p.simulatedMs)).toEqual(result.limiter.samples.slice(1).map((s) => s.t));
    expect(seen.every((p) => p.estimatedEndMs === result.bound.ms)).toBe(true);
  });

  it("restores the real clock and timers after a run", async () => {
    const { setTimeout: before } = globalThis;
    await simulate(BURST.slice(0, 3), { rpm: 10 });
    expect(globalThis.setTimeout).toBe(before);
    expect(Math.abs(Date.now() - new Date().getTime())).toBeLessThan(1_000);
  });

  it.each([
    [BURST, {}, TypeError, /needs at least one budget/],
    [BURST, { rpm: 10, tmp: 5 }, TypeError, /unknown option "tmp"/],
    [BURST, { rpm: -1 }, RangeError, /rpm must be a finite number > 0/],
    [BURST, { rpm: 1, concurrency: 1.5 }, RangeError, /concurrency must be a whole number >= 1/],
    [BURST, { rpm: 1, latencyMs: "2s" }, TypeError, /latencyMs must be a number/],
    [BURST, { rpm: 1, sampleMs: 0 }, RangeError, /sampleMs must be a whole number >= 1/],
    [BURST, { rpm: 1, dialect: "groq" }, TypeError, /dialect must be "openai" or "anthropic"/],
    [[], { rpm: 1 }, RangeError, /the workload has no call/],
    [[{ at: 5, prompt: 1, maxTokens: 1, completion: 1 }, BURST[0]], { rpm: 1 }, RangeError, /sorted by "at"/],
    [[{ at: 0, prompt: 1, maxTokens: 1 }], { rpm: 1 }, TypeError, /^simulate\(\): call 1: "completion" is required$/],
  ])("refuses a bad workload or option at once (%#)", async (workload, options, type, message) => {
    const run = () => simulate(workload as WorkloadCall[], options as never);
    await expect(run()).rejects.toThrow(type);
    await expect(run()).rejects.toThrow(message);
  });
});

describe("renderReport", () => {
  it("draws one inline SVG per chart, the summary of both runs, and loads nothing", async () => {
    const result = await simulate(BURST, { ...BUDGETS, sampleMs: 1_000 });
    const html = renderReport(result, { title: "A <burst>" });
    const figures = [...html.matchAll(/<figure class="chart" id="([a-z-]+)">([\s\S]*?)<\/figure>/g)];
    expect(figures.map((f) => f[1])).toEqual([
      "levels-rpm",
      "levels-tpm",
      "waiting",
      "admissions",
      "rejections",
      "completed",
    ]);
    for (const [, , body] of figures) {
      expect(body!.match(/<svg /g)).toHaveLength(1);
      expect(body).toMatch(/<polyline [^>]*points="[\d., ]+"/);
    }
    // The key's level in both runs and the limiter's view, in the legend of each budget's chart.
    for (const levels of figures.slice(0, 2)) {
      expect(levels[2]).toMatch(
        /<li>.*the key, no limiter<\/li><li>.*the key, llm-limiter<\/li><li>.*the limiter&#39;s view<\/li>/,
      );
    }
    // The figures as a table too, every few samples, and the page stays small.
    expect(html).toMatch(/<details id="samples">[\s\S]*<\/table><\/details>/);
    expect(html.length).toBeLessThan(100_000);
    expect(html).toContain("<title>A &#60;burst&#62;</title>");
    expect(html).toMatch(/<td>429s drawn<\/td><td>0<\/td><td>[1-9][\d,]*<\/td>/);
    // Self-contained: no script, no stylesheet or image to fetch.
    expect(html).not.toMatch(/<script|<link|<img|src=|href=|@import|url\(/i);
  });
});
