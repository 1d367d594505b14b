import { AggregationTemporality } from "@opentelemetry/sdk-metrics";
import { afterEach, describe, expect, it } from "vitest";
import { LimiterGroup, type Limiter } from "../../src/index.js";
import { instrument } from "../../src/otel/index.js";
import { useFakeTime } from "../fake-time.js";
import { testMetrics, valueAt, type TestMetrics } from "./metrics.js";

const time = useFakeTime();
let metrics: TestMetrics;
afterEach(() => metrics?.shutdown());

const ENV = { "deployment.environment.name": "test" };

function instrumented(temporality?: AggregationTemporality): { group: LimiterGroup; stop: () => void } {
  metrics = testMetrics(temporality);
  const group = new LimiterGroup({
    models: { "gpt-4o": { tpm: 10_000 } },
    shared: { tpd: 100_000 },
    default: { tpm: 5_000 },
    maxMembers: 1,
    priorities: ["interactive", "default"],
    initial: "full",
    arrivalDelayMs: 0,
    clock: time.clock,
  });
  const stop = instrument(group, { meter: metrics.meter, attributes: ENV });
  return { group, stop };
}

const model = (name: string) => ({ ...ENV, "gen_ai.request.model": name });

/** Whether any of `limiter`'s event channels has a listener. */
function listened(limiter: Limiter): boolean {
  const { channels } = (limiter as unknown as { events: { channels: Record<string, unknown> } }).events;
  return Object.values(channels).some((channel) => channel !== undefined);
}

describe("instrument(group, { meter })", () => {
  it("counts each member's calls under its name and priority, members made from default included", async () => {
    const { group } = instrumented();
    await group.run("gpt-4o", 1_000, () => ({ value: 1, used: 400 }), { priority: "interactive" });
    await group.run("gpt-4o-mini", 500, () => ({ value: 2, used: 100 }));
    const admitted = await metrics.points("llm_limiter.requests.admitted");
    expect(valueAt(admitted, { ...model("gpt-4o"), "llm_limiter.priority": "interactive" })).toBe(1);
    expect(valueAt(admitted, { ...model("gpt-4o-mini"), "llm_limiter.priority": "default" })).toBe(1);
    const used = await metrics.points("llm_limiter.tokens.used");
    expect(valueAt(used, { ...model("gpt-4o"), "llm_limiter.dimension": "tpm" })).toBe(400);
    expect(valueAt(used, { ...model("gpt-4o-mini"), "llm_limiter.dimension": "project-tpd" })).toBe(100);
    await group.close();
  });

  it("observes every member's levels and the shared dimensions', and drops a member evicted", async () => {
    const { group } = instrumented(AggregationTemporality.DELTA);
    await group.run("a", 1_000, () => ({ value: 1, used: 1_000 }));
    let available = await metrics.points("llm_limiter.capacity.available");
    expect(valueAt(available, { ...model("gpt-4o"), "llm_limiter.dimension": "tpm" })).toBe(10_000);
    expect(valueAt(available, { ...model("a"), "llm_limiter.dimension": "tpm" })).toBe(4_000);
    // The shared budget is every member's: no model, under its name in `shared`.
    const shared = available.filter((p) => p.attributes["llm_limiter.dimension"] === "tpd");
    expect(shared.map((p) => [p.attributes["gen_ai.request.model"], p.value])).toEqual([[undefined, 99_000]]);
    expect(valueAt(await metrics.points("llm_limiter.capacity.limit"), { "llm_limiter.dimension": "tpd" })).toBe(
      100_000,
    );
    const a = group.for("a");
    group.for("b"); // maxMembers 1: evicts "a", idle
    expect(listened(a)).toBe(false);
    available = await metrics.points("llm_limiter.capacity.available");
    const models = new Set(available.map((p) => p.attributes["gen_ai.request.model"]));
    expect([...models].sort()).toEqual(["b", "gpt-4o", undefined]);
    await group.close();
  });

  it("stops every listener and callback, members made later included", async () => {
    const { group, stop } = instrumented();
    stop();
    expect([listened(group.for("gpt-4o")), listened(group.for("later"))]).toEqual([false, false]);
    expect(await metrics.points("llm_limiter.queue.depth")).toEqual([]);
    await group.close();
  });

  it("refuses `model` with a group, with a TypeError", async () => {
    metrics = testMetrics();
    const group = new LimiterGroup({ models: { a: { rpm: 1 } } });
    expect(() => instrument(group, { meter: metrics.meter, model: "a" })).toThrow(TypeError);
    await group.close();
  });
});
