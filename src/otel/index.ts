/** `llm-limiter/otel`: a limiter's levels, queue and events as OpenTelemetry metrics. */
export { instrument } from "./instrument.js";
export type { Instrumentable, InstrumentableGroup, InstrumentOptions } from "./options.js";
