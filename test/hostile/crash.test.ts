import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Limiter, WaitTimeoutError, type Clock } from "../../src/index.js";
import { MAX_REPORTED_WAIT_MS } from "../../src/core/errors.js";
import { flush, useFakeTime } from "../fake-time.js";

const CHILD = fileURLToPath(new URL("./crash-child.ts", import.meta.url));
/** The last epoch ms a `Date` holds. */
const DATE_END_MS = 8.64e15;

const time = useFakeTime();

/** Runs a scenario of crash-child.ts in a process of its own (an uncaught exception there ends it). */
function child(scenario: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["--import", "tsx", CHILD, scenario], { encoding: "utf8", timeout: 20_000 });
}

/** A clock on the fake timers whose wall time stands `aheadMs` before the end of the `Date` range. */
function dateEndClock(aheadMs: number): Clock {
  return { now: () => time.clock.now(), wallNow: () => DATE_END_MS - aheadMs };
}

describe("a wait past the Date range never crashes the process", () => {
  it("a 1e20 usage settled while a waiter has a deadline: the deadline rejects it, the process lives", () => {
    const { status, stdout, stderr } = child("huge-usage");
    expect(stderr).not.toMatch(/RangeError|Invalid time value/);
    expect(stdout).toMatch(
      /^waiter: WaitTimeoutError: Admission on "tpm" needs \d+ ms \(at .+Z\), over maxWaitMs 20$/m,
    );
    expect(stdout).toMatch(/^done$/m);
    expect(status).toBe(0);
  });

  it("a deadline whose availableAt lies past the Date range: reported without a date", () => {
    const { status, stdout } = child("date-end");
    expect(stdout).toMatch(/^deadline: WaitTimeoutError: Admission on "tpm" needs \d+ ms, over maxWaitMs 20$/m);
    expect(status).toBe(0);
  });
});

describe("WaitTimeoutError's message can never throw", () => {
  it.each([
    ["a wait past a month", 1e20, Date.now() + 1e20],
    ["an instant past the Date range", 1_000, DATE_END_MS + 1],
    ["an infinite wait", Infinity, Infinity],
    ["NaN", NaN, NaN],
  ])("%s: no availableAt, and the message says so", (_, waitMs, availableAt) => {
    const error = new WaitTimeoutError("tpm", waitMs, 100, { windowMs: 60_000, availableAt });
    expect(error.availableAt).toBeUndefined();
    expect(error.message).not.toMatch(/\(at /);
    if (!(waitMs <= MAX_REPORTED_WAIT_MS))
      expect(error.message).toBe('Admission on "tpm" has no room within a month, over maxWaitMs 100');
  });

  it("a spent daily budget whose wait is past a month says so, with no date", () => {
    const error = new WaitTimeoutError("rpd", 1e300, 100, { windowMs: 86_400_000, availableAt: 1e300 });
    expect(error.message).toBe(
      'The daily budget "rpd" is spent: it has no room again within a month, over maxWaitMs 100',
    );
    expect(error.availableAt).toBeUndefined();
  });

  it("a wait within a month keeps its availableAt and its date", () => {
    const at = Date.now() + 5_000;
    const error = new WaitTimeoutError("tpm", 5_000, 100, { windowMs: 60_000, availableAt: at });
    expect(error.availableAt).toBe(at);
    expect(error.message).toBe(
      `Admission on "tpm" needs 5000 ms (at ${new Date(at).toISOString()}), over maxWaitMs 100`,
    );
  });
});

describe("run() and acquire() never throw synchronously", () => {
  it("a wait known at once to be too long, with availableAt past the Date range: both reject", async () => {
    const limiter = new Limiter({ rpm: 1, initial: "full", clock: dateEndClock(1_000) });
    (await limiter.acquire(0)).release();
    // The request is spent for good: the prediction refuses the next at once.
    let ran: Promise<unknown> | undefined;
    expect(() => (ran = limiter.run(0, () => ({ value: 1 }), { maxWaitMs: 10 }))).not.toThrow();
    await expect(ran).rejects.toBeInstanceOf(WaitTimeoutError);
    let acquired: Promise<unknown> | undefined;
    expect(() => (acquired = limiter.acquire(0, { maxWaitMs: 10 }))).not.toThrow();
    await expect(acquired).rejects.toMatchObject({ availableAt: undefined });
    expect(limiter.snapshot().queued).toBe(0);
  });

  it("bad input rejects, never throws: a non-function fn, a bad estimate, bad options", async () => {
    const limiter = new Limiter({ tpm: 1_000 });
    const calls: (() => Promise<unknown>)[] = [
      () => limiter.run(1, "fn" as never),
      () => limiter.run(-1, () => ({ value: 1 })),
      () => limiter.run(1, () => ({ value: 1 }), { maxWaitMs: "1" as never }),
      () => limiter.acquire(NaN),
      () => limiter.acquire(1, { signal: {} as never }),
    ];
    for (const call of calls) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call())).not.toThrow();
      await expect(promise).rejects.toBeInstanceOf(Error);
    }
    await flush(time.timers);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
  });
});

describe("run() and acquire() reject even when a listener and onWarning throw", () => {
  it("a refusal heard by a throwing rejected listener, with a throwing onWarning", async () => {
    const limiter = new Limiter({
      tpm: 1_000,
      onWarning: () => {
        throw new Error("onWarning");
      },
    });
    limiter.on("rejected", () => {
      throw new Error("listener");
    });
    for (const call of [() => limiter.run(5_000, () => ({ value: 1 })), () => limiter.acquire(5_000)]) {
      let promise: Promise<unknown> | undefined;
      expect(() => (promise = call())).not.toThrow();
      await expect(promise).rejects.toThrow(/can never be admitted/);
    }
  });
});

describe("arrivalDelayMs is bounded at construction", () => {
  it.each([1e308, 60_001, Infinity, -1, NaN])("%s: a RangeError naming the bound", (arrivalDelayMs) => {
    expect(() => new Limiter({ rpm: 60, arrivalDelayMs })).toThrow(
      new RangeError(`arrivalDelayMs must be a number in [0, 60000] (a minute), got ${arrivalDelayMs}`),
    );
  });

  it("a minute is taken", () => {
    expect(() => new Limiter({ rpm: 60, arrivalDelayMs: 60_000 })).not.toThrow();
  });
});

describe("budgets are bounded at construction", () => {
  it.each([
    [{ tpm: 1e300 }, "tpm must be at most 1000000000000000, got 1e+300"],
    [{ tpm: 1_000, capacity: { tpm: 1e16 } }, "capacity.tpm must be at most 1000000000000000, got 10000000000000000"],
    [
      { limits: { slow: { unit: "tokens", limit: 10, windowMs: 1e300 } } },
      "limits.slow.windowMs must be at most 31622400000, got 1e+300",
    ],
    [
      { limits: { big: { unit: "tokens", limit: 1e16, windowMs: 1_000 } } },
      "limits.big.limit must be at most 1000000000000000, got 10000000000000000",
    ],
  ] as const)("%o: a RangeError", (options, message) => {
    expect(() => new Limiter(options)).toThrow(new RangeError(message));
  });

  it("a year's window and a limit of 1e15 are taken", () => {
    expect(
      () => new Limiter({ tpm: 1e15, limits: { yearly: { unit: "tokens", limit: 1e9, windowMs: 366 * 86_400_000 } } }),
    ).not.toThrow();
  });
});
