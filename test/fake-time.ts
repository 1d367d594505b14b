import FakeTimers, { type Clock as InstalledClock } from "@sinonjs/fake-timers";
import { afterEach, beforeEach } from "vitest";
import type { Clock } from "../src/core/clock.js";

/** Virtual time for a test file: timers, `performance.now()` and `Date.now()` are faked. */
export function useFakeTime(): { readonly timers: InstalledClock; readonly clock: Clock } {
  const state: { timers?: InstalledClock } = {};
  beforeEach(() => {
    state.timers = FakeTimers.install({
      now: Date.UTC(2026, 0, 1),
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
  });
  afterEach(() => {
    state.timers?.uninstall();
  });
  return {
    get timers() {
      return state.timers!;
    },
    clock: { now: () => performance.now(), wallNow: () => Date.now() },
  };
}

/** Lets pending promise callbacks run without moving time. */
export async function flush(timers: InstalledClock): Promise<void> {
  await timers.tickAsync(0);
}
