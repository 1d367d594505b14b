import type { Attributes, Meter } from "@opentelemetry/api";
import type { LimiterSnapshot } from "../limiter.js";
import type { Disposer, LimiterEventName, LimiterListener } from "../events/types.js";

/** What {@link instrument} reads: a `Limiter`, or anything with its `on` and `snapshot`. */
export interface Instrumentable {
  /** Adds an event listener; the returned function removes it. */
  on<K extends LimiterEventName>(name: K, listener: LimiterListener<K>): Disposer;
  /** The current levels, queue and use over the last window. */
  snapshot(): LimiterSnapshot;
}

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /**
   * Where the instruments are made: `metrics.getMeter("my-service")` from `@opentelemetry/api`,
   * or a `MeterProvider`'s `getMeter`.
   */
  meter: Meter;
  /**
   * The model the limiter's budgets belong to, recorded as `gen_ai.request.model` on every measurement.
   * @default `undefined`: no model attribute
   */
  model?: string;
  /**
   * More attributes on every measurement, e.g. `{ "gen_ai.provider.name": "openai" }` or a deployment's name.
   * @default `{}`
   */
  attributes?: Attributes;
}
