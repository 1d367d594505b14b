import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Limiter, type Reservation } from "../src/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

const listeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length;

describe("reservation.signal", () => {
  it("aborts with the caller's reason when the caller's signal aborts", async () => {
    const caller = new AbortController();
    const r = await new Limiter({ rpm: 10 }).acquire(0, { signal: caller.signal });
    const { signal } = r;
    expect(signal).not.toBe(caller.signal);
    expect(signal.aborted).toBe(false);
    const reason = new Error("stop");
    caller.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    r.release();
    expect(listeners(caller.signal)).toBe(0);
  });

  it("is already aborted when the caller's signal aborted before it was read", async () => {
    const caller = new AbortController();
    const r = await new Limiter({ rpm: 10 }).acquire(0, { signal: caller.signal });
    caller.abort("late");
    expect(r.signal.aborted).toBe(true);
    expect(r.signal.reason).toBe("late");
    expect(listeners(caller.signal)).toBe(0);
    r.release();
  });

  it("attaches nothing to the caller's signal until read, and nothing after release", async () => {
    const caller = new AbortController();
    const limiter = new Limiter({ rpm: 10 });
    const unread = await limiter.acquire(0, { signal: caller.signal });
    expect(listeners(caller.signal)).toBe(0);
    unread.release();
    const read = await limiter.acquire(0, { signal: caller.signal });
    expect(listeners(read.signal)).toBe(0);
    expect(listeners(caller.signal)).toBe(1);
    read.release();
    expect(listeners(caller.signal)).toBe(0);
    caller.abort();
    expect(read.signal.aborted).toBe(false); // the call is over
    expect(unread.signal.aborted).toBe(true); // read after release: nothing attached, the caller's state shown
  });

  it("is each call's own, with or without a signal of the caller's", async () => {
    const limiter = new Limiter({ rpm: 10 });
    const caller = new AbortController();
    const options = { signal: caller.signal };
    const [a, b, c, d] = await Promise.all([
      limiter.acquire(0),
      limiter.acquire(0),
      limiter.acquire(0, options),
      limiter.acquire(0, options),
    ]);
    expect(new Set([a!.signal, b!.signal, c!.signal, d!.signal]).size).toBe(4);
    expect(a!.signal).toBe(a!.signal);
    expect(a!.signal.aborted).toBe(false);
    for (const r of [a, b, c, d]) r!.release();
    expect(listeners(caller.signal)).toBe(0);
  });

  it("run's fn gets it, and every retried attempt lets go of the caller's signal", async () => {
    const limiter = new Limiter({ rpm: 10 });
    const caller = new AbortController();
    const seen: AbortSignal[] = [];
    const answer = limiter.run(
      0,
      (r) => {
        seen.push(r.signal);
        expect(listeners(caller.signal)).toBe(1);
        if (seen.length < 3)
          throw Object.assign(new Error("429"), { status: 429, headers: { "retry-after-ms": "10" } });
        return { value: "ok" };
      },
      { signal: caller.signal, retry: { attempts: 3 } },
    );
    await time.timers.tickAsync(100);
    await expect(answer).resolves.toBe("ok");
    expect(new Set(seen).size).toBe(3);
    expect(listeners(caller.signal)).toBe(0);
  });
});

describe("a queued waiter's listener on the caller's signal is removed on every path", () => {
  type Act = (limiter: Limiter, caller: AbortController, holder: Reservation) => unknown;
  it.each<[string, Act, string]>([
    ["admitted", (_limiter, _caller, holder) => holder.release(), "admitted"],
    ["timed out", () => time.timers.tickAsync(500), "WaitTimeoutError"],
    ["aborted", (_limiter, caller) => caller.abort(), "AbortError"],
    ["closed", (limiter) => limiter.close(), "LimiterClosedError"],
    ["rejected by setLimits", (limiter) => limiter.setLimits({ tpm: 50 }), "RequestTooLargeError"],
  ])("%s", async (_path, act, expected) => {
    const limiter = new Limiter({ tpm: 6000, concurrency: 1 });
    const holder = await limiter.acquire(0);
    const caller = new AbortController();
    const outcome = limiter.acquire(100, { signal: caller.signal, maxWaitMs: 500 }).then(
      (r) => {
        r.release();
        return "admitted";
      },
      (error: unknown) => (error as Error).name,
    );
    expect(listeners(caller.signal)).toBe(1);
    await act(limiter, caller, holder);
    expect(await outcome).toBe(expected);
    expect(listeners(caller.signal)).toBe(0);
    holder.release();
  });
});

describe("one caller signal shared by many requests", () => {
  it("carries one listener however many wait or run on it, reaches every one on abort, and none once they are done", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const shutdown = new AbortController();
      const limiter = new Limiter({ rpm: 50, initial: "full" });
      const running = await Promise.all(
        Array.from({ length: 50 }, () => limiter.acquire(0, { signal: shutdown.signal })),
      );
      const signals = running.map((r) => r.signal);
      const queued = Array.from({ length: 500 }, () =>
        limiter.acquire(0, { signal: shutdown.signal }).catch((e: unknown) => e),
      );
      expect(listeners(shutdown.signal)).toBe(1);
      const reason = new Error("shutting down");
      shutdown.abort(reason);
      expect(signals.every((s) => s.aborted && s.reason === reason)).toBe(true);
      expect((await Promise.all(queued)).every((e) => e === reason)).toBe(true);
      expect(limiter.snapshot().queued).toBe(0);
      for (const r of running) r.release();
      expect(listeners(shutdown.signal)).toBe(0);
      await time.timers.tickAsync(0);
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("takes the one listener off when the last request leaves, aborted or not", async () => {
    const caller = new AbortController();
    const limiter = new Limiter({ rpm: 1, initial: "empty" });
    const first = limiter.acquire(0, { signal: caller.signal, maxWaitMs: 1_000 }).catch((e: unknown) => e);
    const second = limiter.acquire(0, { signal: caller.signal }).catch((e: unknown) => e);
    expect(listeners(caller.signal)).toBe(1);
    await time.timers.tickAsync(1_000);
    await first;
    expect(listeners(caller.signal)).toBe(1);
    limiter.close();
    await second;
    expect(listeners(caller.signal)).toBe(0);
  });
});
