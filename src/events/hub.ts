import { Channel } from "./channel.js";
import { disposer } from "./disposer.js";
import type { Disposer, LimiterEventName, LimiterEvents, LimiterListener } from "./types.js";

/** One channel per event, `undefined` while nobody listens: emit points test it, so no payload is built for nobody. */
export type Channels = { [K in LimiterEventName]: Channel<LimiterEvents[K]> | undefined };

const NAMES: readonly LimiterEventName[] = [
  "queued",
  "admitted",
  "settled",
  "rejected",
  "synced",
  "rateLimited",
  "drift",
  "paused",
  "resumed",
  "corrected",
  "quota",
];

/** Throws TypeError unless `name` is a limiter event and `listener` a function. */
export function checkListener(name: unknown, listener: unknown): void {
  if (!NAMES.includes(name as LimiterEventName)) {
    throw new TypeError(`unknown limiter event ${JSON.stringify(name)}; expected one of ${NAMES.join(", ")}`);
  }
  if (typeof listener !== "function") throw new TypeError(`the "${String(name)}" listener must be a function`);
}

/**
 * A limiter's events. Emit with `hub.channels.admitted?.emit({ ... })`: the optional call skips
 * building the payload when nobody listens.
 */
export class EventHub {
  readonly channels: Channels = {
    queued: undefined,
    admitted: undefined,
    settled: undefined,
    rejected: undefined,
    synced: undefined,
    rateLimited: undefined,
    drift: undefined,
    paused: undefined,
    resumed: undefined,
    corrected: undefined,
    quota: undefined,
  };

  constructor(private readonly warn: (warning: Error) => void) {}

  /** Adds `listener` to event `name`; the returned function removes it. Throws TypeError on an unknown name. */
  on<K extends LimiterEventName>(name: K, listener: LimiterListener<K>): Disposer {
    checkListener(name, listener);
    const channels = this.channels as Record<K, Channel<LimiterEvents[K]> | undefined>;
    const channel = (channels[name] ??= new Channel<LimiterEvents[K]>(name, this.warn));
    channel.add(listener);
    return disposer(() => {
      channel.remove(listener);
      // Back to no cost once the last listener leaves (unless a new channel replaced this one).
      if (channel.empty && channels[name] === channel) channels[name] = undefined;
    });
  }
}
