import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";
import { disposer } from "../events/disposer.js";
import type { CallEvent, Disposer, LimiterEventName, LimiterEvents, SettledEvent } from "../events/types.js";
import type { GroupSnapshot } from "../index.js";
import { observeSnapshots, type Collected } from "./gauges.js";
import * as names from "./names.js";
import type { Instrumentable, InstrumentableGroup, InstrumentOptions } from "./options.js";

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

/** Adds a listener that also gets the attributes of where the event happened (the limiter, or a group's member). */
type Listen = <K extends LimiterEventName>(
  name: K,
  listener: (event: LimiterEvents[K], attributes: Attributes) => void,
) => Disposer;

/**
 * Reports a limiter, or a `LimiterGroup`, to OpenTelemetry: gauges read from `snapshot()` at each
 * collection (available capacity, limit, utilisation and reservation efficiency per dimension; queue depth,
 * oldest wait, requests in flight), counters and histograms fed by its events, with the call's priority
 * class. A group's measurements name their member in `gen_ai.request.model`, members made from `default`
 * included as they appear; its shared dimensions have gauges of their own. The names and attributes are in
 * docs/observability.md. Returns a function that removes every listener and callback it added
 * (the instruments themselves stay with the meter, which has no way to drop them).
 *
 * @example
 * ```ts
 * import { metrics } from "@opentelemetry/api";
 * import { Limiter, LimiterGroup } from "llm-limiter";
 * import { instrument } from "llm-limiter/otel";
 *
 * const meter = metrics.getMeter("my-service");
 * const limiter = new Limiter({ rpm: 500, tpm: 200_000 });
 * const stop = instrument(limiter, { meter, model: "gpt-4o" });
 * const group = new LimiterGroup({ models: { "gpt-4o": { tpm: 30_000 } }, shared: { tpd: 2_000_000 } });
 * const stopGroup = instrument(group, { meter });
 * // ... on shutdown:
 * stop();
 * stopGroup();
 * ```
 */
export function instrument(target: Instrumentable | InstrumentableGroup, options: InstrumentOptions): Disposer {
  if (typeof target?.on !== "function" || typeof target.snapshot !== "function") {
    throw new TypeError("instrument(): expected a Limiter or a LimiterGroup (something with on() and snapshot())");
  }
  const { meter, model, attributes = {} } = options ?? ({} as InstrumentOptions);
  if (typeof meter?.createCounter !== "function") {
    throw new TypeError("instrument(): options.meter must be an OpenTelemetry Meter");
  }
  if (model !== undefined && typeof model !== "string") throw new TypeError("instrument(): model must be a string");
  const group = isGroup(target);
  if (group && model !== undefined) {
    throw new TypeError("instrument(): a group's measurements name each member as the model; leave `model` out");
  }
  const base: Attributes = model === undefined ? { ...attributes } : { ...attributes, [names.REQUEST_MODEL]: model };
  let listen: Listen;
  let collect: () => Collected;
  if (group) {
    const member = (name: string): Attributes => ({ ...base, [names.REQUEST_MODEL]: name });
    listen = (name, listener) => target.on(name, (event, memberName) => listener(event, member(memberName)));
    collect = () => membersOf(target.snapshot(), member);
  } else {
    const limiter = target as Instrumentable;
    listen = (name, listener) => limiter.on(name, (event) => listener(event, base));
    collect = () => ({ limiters: [[limiter.snapshot(), base]] });
  }
  const stopGauges = observeSnapshots(meter, base, collect);
  const offs = listenAll(listen, recorders(meter));
  return disposer(() => {
    for (const off of offs) off();
    stopGauges();
  });
}

/** Whether `target` is a group: its snapshot has members. */
function isGroup(target: Instrumentable | InstrumentableGroup): target is InstrumentableGroup {
  return "members" in target.snapshot();
}

function membersOf(snapshot: GroupSnapshot, member: (name: string) => Attributes): Collected {
  const limiters = Object.entries(snapshot.members).map(([name, s]) => [s, member(name)] as const);
  return { limiters, shared: snapshot.shared };
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

/** The attributes of a call's measurements: where it happened, and its priority class. */
function ofCall(attributes: Attributes, { priority }: CallEvent): Attributes {
  return { ...attributes, [names.PRIORITY]: priority };
}

/** Feeds the counters and histograms from the events; returns the disposers. */
function listenAll(listen: Listen, r: Recorders): Disposer[] {
  return [
    listen("admitted", (event, attributes) => {
      const call = ofCall(attributes, event);
      r.admitted.add(1, call);
      r.wait.record(event.waitMs / 1_000, call);
    }),
    listen("rejected", (event, attributes) =>
      r.rejected.add(1, { ...ofCall(attributes, event), [names.ERROR_TYPE]: event.reason }),
    ),
    listen("rateLimited", ({ failure }, attributes) =>
      r.rateLimited.add(1, { ...attributes, [names.FAILURE_KIND]: failure.kind }),
    ),
    listen("drift", ({ dimension }, attributes) => r.drift.add(1, { ...attributes, [names.DIMENSION]: dimension })),
    listen("settled", (event, attributes) => recordSettled(event, r, ofCall(attributes, event))),
  ];
}

function recordSettled({ usage, dimensions }: SettledEvent, r: Recorders, call: Attributes): void {
  for (const [dimension, { unit, reserved, used }] of Object.entries(dimensions)) {
    if (unit === "requests") continue;
    const attributes = { ...call, [names.DIMENSION]: dimension };
    r.reserved.add(reserved, attributes);
    r.used.add(used, attributes);
  }
  // The conventions type every measurement: a plain total has no place there.
  if (typeof usage === "object") {
    r.tokenUsage.record(usage.input, { ...call, [names.TOKEN_TYPE]: "input" });
    r.tokenUsage.record(usage.output, { ...call, [names.TOKEN_TYPE]: "output" });
  }
}
