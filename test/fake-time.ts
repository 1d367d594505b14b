import FakeTimers, { type Clock as InstalledClock } from "@sinonjs/fake-timers";
import { afterEach, beforeEach } from "vitest";
import type { Clock } from "../src/index.js";

/** Wall-clock time at monotonic 0 unless a test asks for another: 2026-01-01T00:00:00Z. */
export const WALL_START_MS = Date.UTC(2026, 0, 1);

/** The moment of Anthropic's documented example headers: the simulator's tests start their wall clock there. */
export const EPOCH_MS = Date.UTC(2025, 1, 24, 22, 24, 32);

export interface FakeTimeOptions {
  /**
   * What is faked. `"globals"`: timers, intervals, `performance.now()` and `Date.now()`, and the clock reads those
   * globals, as the library's default clock does (so code that reads them directly agrees with it). `"timeouts"`:
   * only `setTimeout`/`clearTimeout`; `Date` and `performance` stay real and the clock reads the fake timers.
   * @default "globals"
   */
  readonly fake?: "globals" | "timeouts";
  /**
   * Wall-clock time at monotonic 0 (the monotonic clock starts at 0 either way, so fixed windows align at multiples
   * of the window from the start).
   * @default WALL_START_MS
   */
  readonly wallStartMs?: number;
}

/** Installed fake time: the timers, a clock on them, and a way to move to an instant. */
export interface FakeTime {
  readonly timers: InstalledClock;
  readonly clock: Clock;
  /** Moves fake time forward to monotonic `ms`, running due timers and promise callbacks. */
  at(ms: number): Promise<void>;
}

/**
 * Installs fake time at once, for code that installs it inside a test (one install per property run, say);
 * the caller uninstalls `timers`. {@link useFakeTime} installs it around each test of a file instead.
 */
export function installFakeTime({ fake = "globals", wallStartMs = WALL_START_MS }: FakeTimeOptions = {}): FakeTime {
  let timers: InstalledClock;
  let clock: Clock;
  if (fake === "globals") {
    timers = FakeTimers.install({
      now: wallStartMs,
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
    clock = { now: () => performance.now(), wallNow: () => Date.now() };
  } else {
    timers = FakeTimers.install({ now: 0, toFake: ["setTimeout", "clearTimeout"] });
    clock = { now: () => timers.now, wallNow: () => wallStartMs + timers.now };
  }
  return {
    timers,
    clock,
    async at(ms: number) {
      await timers.tickAsync(ms - clock.now());
    },
  };
}

/** Virtual time for a test file: fake time (see {@link FakeTimeOptions}) installed before each test, removed after. */
export function useFakeTime(options: FakeTimeOptions = {}): FakeTime {
  let installed: FakeTime | undefined;
  beforeEach(() => {
    installed = installFakeTime(options);
  });
  afterEach(() => {
    installed?.timers.uninstall();
  });
  const current = (): FakeTime => {
    if (!installed) throw new Error("fake time is only installed inside a test");
    return installed;
  };
  return {
    get timers() {
      return current().timers;
    },
    clock: { now: () => current().clock.now(), wallNow: () => current().clock.wallNow() },
    at: (ms) => current().at(ms),
  };
}

/** Lets pending promise callbacks run, and timers due now fire, without moving time. */
export async function flush(timers: InstalledClock): Promise<void> {
  await timers.tickAsync(0);
}

/** Lets every pending promise callback run without moving virtual time or firing timers (setImmediate is not faked). */
export function flushPromises(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
