/**
 * A limiter's snapshot and events as prom-client metrics, for services without OpenTelemetry
 * (docs/observability.md). In your own project, import from "llm-limiter" rather than "../../src/index.js".
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Limiter } from "../../src/index.js";

/** Seconds: admitted at once, up to the long waits a spent budget causes. */
const WAIT_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * Registers the limiter's metrics on `registry`: gauges read from `limiter.snapshot()` when
 * Prometheus scrapes, counters and a histogram fed by `limiter.on(...)`. `labels` go on every
 * metric (a model's name, say). Returns a function that stops the listeners and removes the metrics.
 */
export function exposeLimiter(limiter: Limiter, registry: Registry, labels: Record<string, string> = {}): () => void {
  const names = Object.keys(labels);
  const registers = [registry];
  const perDimension = [...names, "dimension"];
  let snapshot = limiter.snapshot();
  // One snapshot per scrape: the first gauge collected takes it, the others read it.
  const fresh = (): typeof snapshot => (snapshot = limiter.snapshot());
  const dimensionGauge = (
    name: string,
    help: string,
    value: (d: (typeof snapshot.dimensions)[string]) => number | undefined,
    first = false,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: perDimension,
      registers,
      collect() {
        this.reset();
        const { dimensions } = first ? fresh() : snapshot;
        for (const [dimension, d] of Object.entries(dimensions)) {
          const v = value(d);
          if (v !== undefined) this.set({ ...labels, dimension }, v);
        }
      },
    });
  const limiterGauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      labelNames: names,
      registers,
      collect() {
        this.set(labels, value());
      },
    });
  const gauges = [
    dimensionGauge("llm_limiter_capacity_available", "Units a request could take now", (d) => d.available, true),
    dimensionGauge("llm_limiter_capacity_limit", "Units that refill per window", (d) => d.limit),
    dimensionGauge("llm_limiter_utilization", "Net cost charged over the last window / limit", (d) => d.utilisation),
    dimensionGauge(
      "llm_limiter_reservation_efficiency",
      "Tokens used / reserved over the last window",
      (d) => d.efficiency,
    ),
    limiterGauge("llm_limiter_queue_depth", "Requests waiting for admission", () => snapshot.queued),
    limiterGauge(
      "llm_limiter_queue_oldest_wait_seconds",
      "Longest wait so far in the queue",
      () => snapshot.oldestWaitMs / 1_000,
    ),
    limiterGauge("llm_limiter_requests_in_flight", "Admitted requests not yet released", () => snapshot.inFlight),
  ];
  const counter = (name: string, help: string, labelNames: string[]) =>
    new Counter({ name, help, labelNames, registers });
  const admitted = counter("llm_limiter_requests_admitted_total", "Requests admitted", names);
  const rejected = counter("llm_limiter_requests_rejected_total", "Requests refused admission", [...names, "reason"]);
  const rateLimited = counter("llm_limiter_rate_limited_total", "429 responses synced", names);
  const reserved = counter("llm_limiter_tokens_reserved_total", "Tokens reserved by released calls", perDimension);
  const used = counter("llm_limiter_tokens_used_total", "Tokens released calls used", perDimension);
  const wait = new Histogram({
    name: "llm_limiter_admission_wait_seconds",
    help: "Time from queueing to admission",
    labelNames: names,
    buckets: WAIT_BUCKETS,
    registers,
  });
  const offs = [
    limiter.on("admitted", ({ waitMs }) => {
      admitted.inc(labels);
      wait.observe(labels, waitMs / 1_000);
    }),
    limiter.on("rejected", ({ reason }) => rejected.inc({ ...labels, reason })),
    limiter.on("rateLimited", () => rateLimited.inc(labels)),
    limiter.on("settled", ({ dimensions }) => {
      for (const [dimension, d] of Object.entries(dimensions)) {
        if (d.unit === "requests") continue;
        reserved.inc({ ...labels, dimension }, d.reserved);
        used.inc({ ...labels, dimension }, d.used);
      }
    }),
  ];
  const metrics = [...gauges, admitted, rejected, rateLimited, reserved, used, wait];
  return () => {
    for (const off of offs) off();
    // prom-client's metrics carry their name at run time; its types leave it out.
    for (const metric of metrics) registry.removeSingleMetric((metric as unknown as { name: string }).name);
  };
}
