import { afterEach, describe, expect, it } from "vitest";
import type { Histogram } from "@opentelemetry/sdk-metrics";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import { instrument } from "../../src/otel/index.js";
import { useFakeTime } from "../fake-time.js";
import { testMetrics, valueAt, type TestMetrics } from "./metrics.js";

const time = useFakeTime();
let metrics: TestMetrics;
afterEach(() => metrics?.shutdown());

const MODEL = { "gen_ai.request.model": "gpt-4o", "deployment.environment.name": "test" };

function instrumented(options: LimiterOptions = {}): { limiter: Limiter; stop: () => void } {
  metrics = testMetrics();
  const limiter = new Limiter({
    rpm: 60,
    capacity: { rpm: 1 },
    tpm: 10_000,
    initial: "full",
    arrivalDelayMs: 0,
    clock: time.clock,
    ...options,
  });
  const stop = instrument(limiter, {
    meter: metrics.meter,
    model: "gpt-4o",
    attributes: { "deployment.environment.name": "test" },
  });
  return { limiter, stop };
}

describe("instrument(limiter, { meter })", () => {
  it("observes capacity, limits, the queue and calls in flight at each collection", async () => {
    const { limiter } = instrumented();
    const held = await limiter.acquire(1_000);
    const waiting = limiter.acquire(2_000);
    await time.at(500);
    const available = await metrics.points("llm_limiter.capacity.available");
    expect(valueAt(available, { ...MODEL, "llm_limiter.dimension": "rpm" })).toBe(0);
    expect(valueAt(available, { ...MODEL, "llm_limiter.dimension": "tpm" })).toBe(9_000 + 83); // 500 ms of refill
    expect(valueAt(await metrics.points("llm_limiter.capacity.limit"), { "llm_limiter.dimension": "tpm" })).toBe(
      10_000,
    );
    expect(valueAt(await metrics.points("llm_limiter.queue.depth"), MODEL)).toBe(1);
    expect(valueAt(await metrics.points("llm_limiter.queue.oldest_wait"), MODEL)).toBe(0.5);
    expect(valueAt(await metrics.points("llm_limiter.requests.in_flight"), MODEL)).toBe(1);
    expect(valueAt(await metrics.points("llm_limiter.utilization"), { "llm_limiter.dimension": "tpm" })).toBe(0.1);
    await time.at(1_000);
    held.release();
    (await waiting).release();
  });

  it("counts admissions, waits, refusals, 429s and tokens from the events", async () => {
    const { limiter } = instrumented({ maxQueue: 1, provider: "openai" });
    await limiter.run(1_000, () => ({ value: undefined, used: 400 }));
    const second = limiter.run(2_000, () => ({ value: undefined, used: 1_000 }));
    await expect(limiter.acquire(1)).rejects.toThrow(/queue/i);
    await time.at(1_000);
    await second;
    limiter.sync({ "retry-after": "3" }, { status: 429 });

    expect(valueAt(await metrics.points("llm_limiter.requests.admitted"), MODEL)).toBe(2);
    const wait = valueAt(await metrics.points("llm_limiter.admission.wait"), MODEL) as Histogram;
    expect({ count: wait.count, sum: wait.sum }).toEqual({ count: 2, sum: 1 });
    const rejected = await metrics.points("llm_limiter.requests.rejected");
    expect(valueAt(rejected, { "error.type": "queue_full", "llm_limiter.priority": "default" })).toBe(1);
    expect(valueAt(await metrics.points("llm_limiter.rate_limited"), { "llm_limiter.failure.kind": "rate" })).toBe(1);
    const reserved = await metrics.points("llm_limiter.tokens.reserved");
    expect(reserved.map((p) => [p.attributes["llm_limiter.dimension"], p.value])).toEqual([["tpm", 3_000]]);
    expect(valueAt(await metrics.points("llm_limiter.tokens.used"), { "llm_limiter.dimension": "tpm" })).toBe(1_400);
    expect(valueAt(await metrics.points("llm_limiter.reservation.efficiency"), MODEL)).toBeCloseTo(1_400 / 3_000);
    // Plain totals have no gen_ai.token.type: the GenAI histogram waits for { input, output }.
    expect(await metrics.points("gen_ai.client.token.usage")).toEqual([]);
  });

  it("records gen_ai.client.token.usage by gen_ai.token.type when usage comes as { input, output }", async () => {
    const { limiter } = instrumented({ tpm: undefined, itpm: 10_000, otpm: 2_000 });
    await limiter.run({ input: 500, output: 1_000 }, () => ({ value: undefined, used: { input: 500, output: 120 } }));
    const usage = await metrics.points("gen_ai.client.token.usage");
    const sums = usage.map((p) => [p.attributes["gen_ai.token.type"], (p.value as Histogram).sum]);
    expect(sums).toEqual([
      ["input", 500],
      ["output", 120],
    ]);
    expect(usage.every((p) => p.attributes["gen_ai.request.model"] === "gpt-4o")).toBe(true);
  });

  it("stops every listener and callback through the function it returns", async () => {
    const { limiter, stop } = instrumented();
    (await limiter.acquire(1)).release();
    stop();
    stop();
    const channels = (limiter as unknown as { events: { channels: Record<string, unknown> } }).events.channels;
    expect(Object.values(channels).every((channel) => channel === undefined)).toBe(true);
    expect(await metrics.points("llm_limiter.queue.depth")).toEqual([]);
    await time.at(1_000);
    (await limiter.acquire(1)).release();
    expect(valueAt(await metrics.points("llm_limiter.requests.admitted"), MODEL)).toBe(1);
  });

  it("refuses what is not a limiter, or a missing meter, with a TypeError", () => {
    metrics = testMetrics();
    const limiter = new Limiter({ rpm: 1 });
    expect(() => instrument({} as never, { meter: metrics.meter })).toThrow(TypeError);
    expect(() => instrument(limiter, {} as never)).toThrow(TypeError);
    expect(() => instrument(limiter, { meter: metrics.meter, model: 4 as never })).toThrow(TypeError);
  });
});
