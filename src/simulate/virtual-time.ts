import type { Clock as InstalledClock } from "@sinonjs/fake-timers";

/**
 * Loaded when a run starts, from the user's install: `llm-limiter/testing` needs it for nothing else, and the
 * CLI bundles it.
 */
async function loadFakeTimers(): Promise<typeof import("@sinonjs/fake-timers")> {
  try {
    return (await import("@sinonjs/fake-timers")).default;
  } catch (error) {
    throw new Error("simulate() runs on virtual time from @sinonjs/fake-timers: npm install -D @sinonjs/fake-timers", {
      cause: error,
    });
  }
}

/** What a scenario hands back once started: when it is done, and what to do every step. */
export interface Scenario<T> {
  readonly done: Promise<T>;
  onStep?(elapsedMs: number): void;
}

/**
 * Runs a scenario on virtual time: timers, `Date` and `performance` are faked
 * (both the limiter and the simulator read them at call time), and `advance`
 * moves the clock, again and again, until the scenario is done. `start` runs
 * after the clock is installed, so whatever it builds starts at virtual 0.
 */
export async function driveVirtualTime<T, S extends { readonly done: Promise<T> }>(
  start: () => S,
  advance: (clock: InstalledClock, scenario: S) => Promise<void>,
): Promise<T> {
  const FakeTimers = await loadFakeTimers();
  const clock = FakeTimers.install({
    now: Date.UTC(2026, 0, 1),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  try {
    const scenario = start();
    let settled = false;
    // A rejection is observed by the `await` below; this only ends the stepping.
    scenario.done.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled) await advance(clock, scenario);
    return await scenario.done;
  } finally {
    clock.uninstall();
  }
}

/**
 * Runs a scenario on virtual time moving in `stepMs` steps, each running every
 * timer and promise callback due in it: minutes of traffic take seconds.
 * Gives up after `limitMs`.
 */
export function onVirtualTime<T>(start: () => Scenario<T>, stepMs: number, limitMs: number): Promise<T> {
  let elapsed = 0;
  return driveVirtualTime(start, async (clock, scenario) => {
    elapsed += stepMs;
    if (elapsed > limitMs) throw new Error(`scenario still running after ${limitMs / 1000} simulated seconds`);
    await clock.tickAsync(stepMs);
    scenario.onStep?.(elapsed);
  });
}
