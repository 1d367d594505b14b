import { driveVirtualTime } from "../../src/simulate/virtual-time.js";

/** What a scenario hands back once started: when it is done, and how many requests are on the wire now. */
export interface NetworkScenario<T> {
  readonly done: Promise<T>;
  onTheWire(): number;
}

/**
 * Runs a scenario on virtual time that stands still while requests are on the
 * wire (a test's loopback HTTP, which should take no time) and otherwise skips
 * to the next timer: a limiter's waits, a simulator's arrival delays and
 * latencies. A burst that would take minutes of real time then takes seconds,
 * and the only delays a simulated provider sees are the ones it draws.
 */
export function onVirtualNetworkTime<T>(start: () => NetworkScenario<T>): Promise<T> {
  // Taken before the clock is faked: waiting for the sockets takes real time.
  const realSetTimeout = globalThis.setTimeout;
  return driveVirtualTime(start, async (clock, scenario) => {
    // Let promise callbacks and socket events run, so calls just admitted reach their `fetch`.
    await new Promise((resolve) => setImmediate(resolve));
    if (scenario.onTheWire() > 0) await new Promise((resolve) => realSetTimeout(resolve, 1));
    // At once, not `nextAsync()`: that yields first, and a request could set out meanwhile.
    else if (clock.countTimers() > 0) clock.next();
  });
}
