import type { Attributes, BatchObservableCallback, Counter, Histogram, Meter, Observable } from "@opentelemetry/api";
import { disposer } from "../events/disposer.js";
import type { Disposer, SettledEvent } from "../events/types.js";
import * as names from "./names.js";
import type { Instrumentable, InstrumentOptions } from "./options.js";

/** The event-fed instruments. */
interface Recorders {
  readonly admitted: Counter;
  readonly rejected: Counter;
  readonly rateLimited: Counter;
  readonly drift: Counter;
  readonly reserved: Counter;
  readonly used: Counter;
  readonly wait: Histogram;
  readonly tokenUsage: Histogram;
}

/**
 * Reports a limiter to OpenTelemetry: gauges read from `snapshot()` at each collection (available
 * capacity, limit, utilisation and reservation efficiency per dimension; queue depth, oldest wait,
 * requests in flight), counters and histograms fed by its events. The names and attributes are in
 * docs/observability.md. Returns a function that removes every listener and callback it added
 * (the instruments themselves stay with the meter, which has no way to drop them).
 *
 * @example
 * ```ts
 * import { metrics } from "@opentelemetry/api";
 * import { Limiter } from "llm-limiter";
 * import { instrument } from "llm-limiter/otel";
 *
 * const limiter = new Limiter({ rpm: 500, tpm: 200_000 });
 * const stop = instrument(limiter, { meter: metrics.getMeter("my-service"), model: "gpt-4o" });
 * // ... on shutdown:
 * stop();
 * ```
 */
export function instrument(limiter: Instrumentable, options: InstrumentOptions): Disposer {
  if (typeof limiter?.on !== "function" || typeof limiter.snapshot !== "function") {
    throw new TypeError("instrument(): expected a Limiter (something with on() and snapshot())");
  }
  const { meter, model, attributes = {} } = options ?? ({} as InstrumentOptions);
  if (typeof meter?.createCounter !== "function") {
    throw new TypeError("instrument(): options.meter must be an OpenTelemetry Meter");
  }
  if (model !== undefined && typeof model !== "string") throw new TypeError("instrument(): model must be a string");
  const base: Attributes = model === undefined ? { ...attributes } : { ...attributes, [names.REQUEST_MODEL]: model };
  const stopGauges = observeSnapshots(limiter, meter, base);
  const offs = listen(limiter, recorders(meter), base);
  return disposer(() => {
    for (const off of offs) off();
    stopGauges();
  });
}

function recorders(meter: Meter): Recorders {
  const counter = (name: string, description: string, unit: string) => meter.createCounter(name, { description, unit });
  const histogram = (name: string, description: string, unit: string, buckets: number[]) =>
    meter.createHistogram(name, { description, unit, advice: { explicitBucketBoundaries: buckets } });
  return {
    admitted: counter(names.ADMITTED, "Requests admitted", "{request}"),
    rejected: counter(names.REJECTED, "Requests refused admission, by error.type", "{request}"),
    rateLimited: counter(names.RATE_LIMITED, "429 responses synced", "{response}"),
    drift: counter(names.DRIFT, "Responses whose remaining strayed from the own count past driftMargin", "{response}"),
    reserved: counter(names.TOKENS_RESERVED, "Tokens reserved at admission by released calls", "{token}"),
    used: counter(names.TOKENS_USED, "Tokens released calls used", "{token}"),
    wait: histogram(names.ADMISSION_WAIT, "Time from queueing to admission", "s", names.WAIT_BUCKETS),
    tokenUsage: histogram(
      names.TOKEN_USAGE,
      "Number of input and output tokens used",
      "{token}",
      names.TOKEN_USAGE_BUCKETS,
    ),
  };
}

/** Feeds the counters and histograms from the limiter's events; returns the disposers. */
function listen(limiter: Instrumentable, r: Recorders, base: Attributes): Disposer[] {
  return [
    limiter.on("admitted", ({ waitMs }) => {
      r.admitted.add(1, base);
      r.wait.record(waitMs / 1_000, base);
    }),
    limiter.on("rejected", ({ reason }) => r.rejected.add(1, { ...base, [names.ERROR_TYPE]: reason })),
    limiter.on("rateLimited", ({ failure }) => r.rateLimited.add(1, { ...base, [names.FAILURE_KIND]: failure.kind })),
    limiter.on("drift", ({ dimension }) => r.drift.add(1, { ...base, [names.DIMENSION]: dimension })),
    limiter.on("settled", (event) => recordSettled(event, r, base)),
  ];
}

function recordSettled({ usage, dimensions }: SettledEvent, r: Recorders, base: Attributes): void {
  for (const [dimension, { unit, reserved, used }] of Object.entries(dimensions)) {
    if (unit === "requests") continue;
    const attributes = { ...base, [names.DIMENSION]: dimension };
    r.reserved.add(reserved, attributes);
    r.used.add(used, attributes);
  }
  // The conventions type every measurement: a plain total has no place there.
  if (typeof usage === "object") {
    r.tokenUsage.record(usage.input, { ...base, [names.TOKEN_TYPE]: "input" });
    r.tokenUsage.record(usage.output, { ...base, [names.TOKEN_TYPE]: "output" });
  }
}

/** The gauges, all read from one `snapshot()` per collection; returns what unregisters their callback. */
function observeSnapshots(limiter: Instrumentable, meter: Meter, base: Attributes): () => void {
  const gauge = (name: string, description: string, unit?: string) =>
    meter.createObservableGauge(name, unit === undefined ? { description } : { description, unit });
  const available = gauge(names.AVAILABLE, "Units a request could take now, per dimension");
  const limit = gauge(names.LIMIT, "Units that refill per window, per dimension");
  const utilization = gauge(names.UTILIZATION, "Net cost charged over the last window / limit", "1");
  const efficiency = gauge(names.EFFICIENCY, "Tokens used / reserved over the last window", "1");
  const depth = gauge(names.QUEUE_DEPTH, "Requests waiting for admission", "{request}");
  const oldest = gauge(names.OLDEST_WAIT, "How long the longest-waiting request has waited", "s");
  const inFlight = gauge(names.IN_FLIGHT, "Admitted requests not yet released", "{request}");
  const observables: Observable[] = [available, limit, utilization, efficiency, depth, oldest, inFlight];
  const callback: BatchObservableCallback = (result) => {
    const snapshot = limiter.snapshot();
    for (const [name, d] of Object.entries(snapshot.dimensions)) {
      const attributes = { ...base, [names.DIMENSION]: name };
      result.observe(available, d.available, attributes);
      result.observe(limit, d.limit, attributes);
      result.observe(utilization, d.utilisation, attributes);
      if (d.efficiency !== undefined) result.observe(efficiency, d.efficiency, attributes);
    }
    result.observe(depth, snapshot.queued, base);
    result.observe(oldest, snapshot.oldestWaitMs / 1_000, base);
    result.observe(inFlight, snapshot.inFlight, base);
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
