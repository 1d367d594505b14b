import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { exposeLimiter } from "../../examples/prometheus/metrics.js";
import { Limiter } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** The sample of `metric` with exactly `labels`, from Prometheus's text format. */
function sample(text: string, metric: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${metric}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("examples/prometheus: prom-client metrics from events and snapshot()", () => {
  it("reports a workload against the simulator", async () => {
    const provider = createProvider({ rpm: 60, tpm: 100_000, latencyMs: 100, answerTokens: () => 300 });
    const limiter = new Limiter({
      rpm: 60,
      tpm: 100_000,
      initial: "full",
      arrivalDelayMs: 0,
      provider: "openai",
      maxQueue: 5,
    });
    const registry = new Registry();
    const stop = exposeLimiter(limiter, registry, { model: "m" });
    let waitedMs = 0;
    limiter.on("admitted", ({ waitMs }) => (waitedMs += waitMs));
    const calls = Array.from({ length: 65 }, () =>
      limiter.run(1_200, async (reservation) => {
        const result = await provider.call({ prompt: 200, maxTokens: 1_000 });
        reservation.sync(result.headers, { status: result.status });
        return result.status === 200 ? { value: 1, used: 500 } : { value: 0 };
      }),
    );
    // 60 admitted at once and 5 queued: the queue is full.
    await expect(limiter.acquire(1)).rejects.toThrow(/queue/i);
    await time.at(6_000);
    await Promise.all(calls);
    const text = await registry.metrics();
    expect(sample(text, "llm_limiter_requests_rejected_total", 'model="m",reason="queue_full"')).toBe(1);
    // The 5 queued waited about a second after another (header sync moves it a little).
    expect(sample(text, "llm_limiter_requests_admitted_total", 'model="m"')).toBe(65);
    expect(sample(text, "llm_limiter_tokens_reserved_total", 'model="m",dimension="tpm"')).toBe(65 * 1_200);
    expect(sample(text, "llm_limiter_tokens_used_total", 'model="m",dimension="tpm"')).toBe(65 * 500);
    expect(sample(text, "llm_limiter_reservation_efficiency", 'model="m",dimension="tpm"')).toBeCloseTo(500 / 1_200);
    expect(sample(text, "llm_limiter_capacity_limit", 'model="m",dimension="rpm"')).toBe(60);
    const { dimensions } = limiter.snapshot();
    expect(sample(text, "llm_limiter_capacity_available", 'model="m",dimension="tpm"')).toBe(dimensions.tpm!.available);
    expect(sample(text, "llm_limiter_admission_wait_seconds_count", 'model="m"')).toBe(65);
    expect(waitedMs).toBeGreaterThanOrEqual(15_000);
    expect(sample(text, "llm_limiter_admission_wait_seconds_sum", 'model="m"')).toBeCloseTo(waitedMs / 1_000, 6);

    stop();
    expect(await registry.metrics()).not.toContain("llm_limiter_");
    await limiter.close();
  });
});
