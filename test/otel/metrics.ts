import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from "@opentelemetry/sdk-metrics";
import type { Attributes, Meter } from "@opentelemetry/api";

/** A meter whose measurements are exported on demand into memory, through the SDK's own reader and exporter. */
export interface TestMetrics {
  readonly meter: Meter;
  /** Collects and exports now; returns every data point of metric `name` (none when it had none). */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
  shutdown(): Promise<void>;
}

/** Collects only when asked: no timer of its own, so virtual time does not hold it up. */
class OnDemandReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }

  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * `temporality`: DELTA makes each collection hold only what was observed since the previous one (the SDK keeps
 * reporting an attribute set no callback observes any more under CUMULATIVE).
 */
export function testMetrics(temporality = AggregationTemporality.CUMULATIVE): TestMetrics {
  const exporter = new InMemoryMetricExporter(temporality);
  const reader = new OnDemandReader({ aggregationTemporalitySelector: () => temporality });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    meter: provider.getMeter("llm-limiter-test"),
    async points(name) {
      exporter.reset();
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0) throw errors[0];
      exporter.export(resourceMetrics, () => {});
      const metrics = exporter.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
      return metrics.filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as DataPoint<number>[]);
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The value of the one point whose attributes include `attributes`. */
export function valueAt<T>(points: readonly DataPoint<T>[], attributes: Attributes = {}): T | undefined {
  const matching = points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
  if (matching.length > 1) throw new Error(`${matching.length} points match ${JSON.stringify(attributes)}`);
  return matching[0]?.value;
}
