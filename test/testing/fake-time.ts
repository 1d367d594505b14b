import { install } from "@sinonjs/fake-timers";
import type { Clock as FakeTimers } from "@sinonjs/fake-timers";
import { afterEach, beforeEach } from "vitest";
import type { Clock } from "../../src/core/clock.js";

/** Wall-clock time at monotonic 0: the moment of Anthropic's documented example headers. */
export const EPOCH_MS = Date.UTC(2025, 1, 24, 22, 24, 32);

/**
 * Fakes `setTimeout`/`clearTimeout` around each test and gives a clock on the
 * fake time: monotonic from 0 (so fixed windows align at multiples of the
 * window from the start), wall clock from {@link EPOCH_MS}.
 */
export function useFakeTime(): { readonly timers: FakeTimers; readonly clock: Clock; at(ms: number): Promise<void> } {
  let timers: FakeTimers | undefined;
  beforeEach(() => {
    timers = install({ now: 0, toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    timers?.uninstall();
  });
  const current = (): FakeTimers => {
    if (!timers) throw new Error("fake time is only installed inside a test");
    return timers;
  };
  return {
    get timers() {
      return current();
    },
    clock: { now: () => current().now, wallNow: () => EPOCH_MS + current().now },
    /** Moves fake time forward to monotonic `ms`, running due timers and promise callbacks. */
    async at(ms: number) {
      await current().tickAsync(ms - current().now);
    },
  };
}
