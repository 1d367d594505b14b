/**
 * The Redis call timeout where there is no `setImmediate` and timers have no `unref` (Workers, the Edge
 * runtime, Deno): it rejects one zero-delay timer after `ms` instead, and settles as the call does before.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { withTimeout } from "../../src/redis/timeout.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** Timers as Workers' are: numbers, no `unref`. */
function numberTimers(): void {
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  const timers = new Map<number, ReturnType<typeof set>>();
  let next = 0;
  vi.stubGlobal("setImmediate", undefined);
  vi.stubGlobal("setTimeout", (task: () => void, ms: number) => {
    timers.set(++next, set(task, ms));
    return next;
  });
  vi.stubGlobal("clearTimeout", (id: number) => clear(timers.get(id)));
}

describe("withTimeout without setImmediate or unref", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("rejects with StoreUnavailableError a zero-delay timer after the time is up", async () => {
    numberTimers();
    let settled = false;
    const outcome = withTimeout(() => new Promise(() => {}), 100).catch((error: unknown) => error);
    void outcome.then(() => (settled = true));
    // At 100 ms the timer fires and leaves the loop a turn (a zero-delay timer: 1 ms on fake time) for a reply.
    await time.timers.tickAsync(100);
    expect(settled).toBe(false);
    await time.timers.tickAsync(1);
    expect(await outcome).toMatchObject({ name: "StoreUnavailableError" });
  });

  it("resolves with the reply that comes in time, and leaves no timer", async () => {
    numberTimers();
    const reply = withTimeout(() => new Promise((resolve) => setTimeout(() => resolve("OK"), 50)), 100);
    await time.timers.tickAsync(50);
    expect(await reply).toBe("OK");
    expect(time.timers.countTimers()).toBe(0);
  });
});
