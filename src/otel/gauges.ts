import type { Attributes, BatchObservableCallback, BatchObservableResult, Meter, Observable } from "@opentelemetry/api";
import type { GroupSnapshot } from "../index.js";
import type { LimiterSnapshot } from "../limiter.js";
import * as names from "./names.js";

/** The gauges, every one read from the snapshots at each collection. */
interface Gauges {
  readonly available: Observable;
  readonly limit: Observable;
  readonly utilization: Observable;
  readonly efficiency: Observable;
  readonly depth: Observable;
  readonly oldest: Observable;
  readonly inFlight: Observable;
}

/**
 * What one collection reads: each limiter's snapshot with the attributes of its measurements (one limiter,
 * or every member of a group), and the levels of a group's shared dimensions.
 */
export interface Collected {
  readonly limiters: Iterable<readonly [LimiterSnapshot, Attributes]>;
  readonly shared?: GroupSnapshot["shared"];
}

/** Registers the gauges on `meter`, read from `collect()` at each collection; returns what unregisters them. */
export function observeSnapshots(meter: Meter, base: Attributes, collect: () => Collected): () => void {
  const gauges = createGauges(meter);
  const callback: BatchObservableCallback = (result) => {
    const { limiters, shared = {} } = collect();
    for (const [snapshot, attributes] of limiters) observeLimiter(result, gauges, snapshot, attributes);
    // A shared dimension is every member's: no model attribute, under its name in `shared`.
    for (const [name, d] of Object.entries(shared)) {
      const attributes = { ...base, [names.DIMENSION]: name };
      result.observe(gauges.available, d.available, attributes);
      result.observe(gauges.limit, d.limit, attributes);
    }
  };
  const observables = Object.values(gauges);
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}

function createGauges(meter: Meter): Gauges {
  const gauge = (name: string, description: string, unit?: string) =>
    meter.createObservableGauge(name, unit === undefined ? { description } : { description, unit });
  return {
    available: gauge(names.AVAILABLE, "Units a request could take now, per dimension"),
    limit: gauge(names.LIMIT, "Units that refill per window, per dimension"),
    utilization: gauge(names.UTILIZATION, "Net cost charged over the last window / limit", "1"),
    efficiency: gauge(names.EFFICIENCY, "Tokens used / reserved over the last window", "1"),
    depth: gauge(names.QUEUE_DEPTH, "Requests waiting for admission", "{request}"),
    oldest: gauge(names.OLDEST_WAIT, "How long the longest-waiting request has waited", "s"),
    inFlight: gauge(names.IN_FLIGHT, "Admitted requests not yet released", "{request}"),
  };
}

function observeLimiter(
  result: BatchObservableResult,
  gauges: Gauges,
  snapshot: LimiterSnapshot,
  base: Attributes,
): void {
  for (const [name, d] of Object.entries(snapshot.dimensions)) {
    const attributes = { ...base, [names.DIMENSION]: name };
    result.observe(gauges.available, d.available, attributes);
    result.observe(gauges.limit, d.limit, attributes);
    result.observe(gauges.utilization, d.utilisation, attributes);
    if (d.efficiency !== undefined) result.observe(gauges.efficiency, d.efficiency, attributes);
  }
  result.observe(gauges.depth, snapshot.queued, base);
  result.observe(gauges.oldest, snapshot.oldestWaitMs / 1_000, base);
  result.observe(gauges.inFlight, snapshot.inFlight, base);
}
