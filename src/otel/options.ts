import type { Attributes, Meter } from "@opentelemetry/api";
import type { GroupListener, GroupSnapshot } from "../index.js";
import type { LimiterSnapshot } from "../limiter.js";
import type { Disposer, LimiterEventName, LimiterListener } from "../events/types.js";

/** What {@link instrument} reads of a limiter: a `Limiter`, or anything with its `on` and `snapshot`. */
export interface Instrumentable {
  /** Adds an event listener; the returned function removes it. */
  on<K extends LimiterEventName>(name: K, listener: LimiterListener<K>): Disposer;
  /** The current levels, queue and use over the last window. */
  snapshot(): LimiterSnapshot;
}

/** What {@link instrument} reads of a group: a `LimiterGroup`, or anything with its `on` and `snapshot`. */
export interface InstrumentableGroup {
  /** Adds an event listener to every member, those made later included; the returned function removes it. */
  on<K extends LimiterEventName>(name: K, listener: GroupListener<K>): Disposer;
  /** Every member's snapshot by name, and the shared dimensions' levels. */
  snapshot(): GroupSnapshot;
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
   * Not with a group, whose measurements name their member there (a TypeError).
   * @default `undefined`: no model attribute (a group's: the member's name)
   */
  model?: string;
  /**
   * More attributes on every measurement, e.g. `{ "gen_ai.provider.name": "openai" }` or a deployment's name.
   * @default `{}`
   */
  attributes?: Attributes;
}
