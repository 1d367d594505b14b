import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import {
  Limiter,
  LimiterClosedError,
  LimiterError,
  QueueFullError,
  RequestTooLargeError,
  type Reservation,
  ReservationReleasedError,
  WaitTimeoutError,
} from "../src/index.js";
import { parseRateLimitHeaders } from "../src/headers/index.js";
import { useFakeTime } from "./fake-time.js";
import { ARRIVAL_DELAY_MS } from "./defaults.js";

const time = useFakeTime();

describe("bad configuration throws at once", () => {
  it.each([
    [{ rpm: Number.NaN }, RangeError],
    [{ tpm: -1 }, RangeError],
    [{ rpd: Infinity }, RangeError],
    [{ rpm: 0 }, RangeError],
    [{ concurrency: 1.5 }, RangeError],
    [{ limits: { x: { unit: "tokens", limit: 10, windowMs: 0 } } }, RangeError],
    [{ limits: { x: { unit: "bytes", limit: 10, windowMs: 1000 } } }, TypeError],
    [{ limits: { rpm: { unit: "requests", limit: 10, windowMs: 1000 } } }, TypeError],
    [{ capacity: { tpm: 10 } }, TypeError],
    [{ tpm: 100, capacity: { tpm: -5 } }, RangeError],
    [{ rmp: 100 }, TypeError],
    [{ initial: 2 }, RangeError],
    [{ maxQueue: -1 }, RangeError],
    [{ clock: {} }, TypeError],
  ])("%o", (options, type) => {
    expect(() => new Limiter(options as never)).toThrow(type);
  });

  // A string from an env var or a JSON file is a type mistake: say what was given, not "got 100".
  it.each([
    [{ rpm: "100" }, 'rpm must be a number, got string "100"'],
    [{ tpm: "1e5" }, 'tpm must be a number, got string "1e5"'],
    [{ rpd: true }, "rpd must be a number, got boolean true"],
    [{ tpd: null }, "tpd must be a number, got null"],
    [{ itpm: [1] }, "itpm must be a number, got an array"],
    [{ otpm: {} }, "otpm must be a number, got an object"],
    [{ concurrency: "4" }, 'concurrency must be a number, got string "4"'],
    [{ tpm: 100, capacity: { tpm: "50" } }, 'capacity.tpm must be a number, got string "50"'],
    [
      { limits: { x: { unit: "tokens", limit: "10", windowMs: 1000 } } },
      'limits.x.limit must be a number, got string "10"',
    ],
    [
      { limits: { x: { unit: "tokens", limit: 10, windowMs: "1000" } } },
      'limits.x.windowMs must be a number, got string "1000"',
    ],
    [
      { limits: { x: { unit: "tokens", limit: 10, windowMs: 1000, capacity: "5" } } },
      'limits.x.capacity must be a number, got string "5"',
    ],
    [{ maxQueue: "10" }, 'maxQueue must be a number, got string "10"'],
    [{ initial: "0.5" }, 'initial must be "full", "empty" or a number in [0, 1], got string "0.5"'],
  ])("%o -> TypeError saying what was given", (options, message) => {
    expect(() => new Limiter(options as never)).toThrow(new TypeError(message));
  });

  it("unknown option keys name the known ones", () => {
    expect(() => new Limiter({ tmp: 1000 } as never)).toThrow(TypeError);
    expect(() => new Limiter({ tmp: 1000 } as never)).toThrow(
      /unknown option "tmp"; the options are rpm, tpm, .*concurrency, .*maxQueue, .*provider/,
    );
    expect(() => new Limiter({ rpm: 1 }).setLimits({ tmp: 1 } as never)).toThrow(
      /setLimits\(\): unknown option "tmp"; the options are rpm, tpm/,
    );
    expect(
      () => new Limiter({ limits: { x: { unit: "tokens", limit: 1, windowMs: 1, widowMs: 1 } } } as never),
    ).toThrow(new TypeError('limits.x: unknown option "widowMs"; the options are unit, limit, windowMs, capacity'));
  });

  it("an unknown provider is rejected, listing the known ones, wherever a provider is named", async () => {
    const known =
      "provider must be one of openai, azure, anthropic, groq, cerebras, mistral, openrouter, together, ietf";
    const typo = new TypeError(`${known}; got "opneai"`);
    expect(() => new Limiter({ rpm: 10, provider: "opneai" } as never)).toThrow(typo);
    expect(() => new Limiter({ rpm: 10, provider: 5 } as never)).toThrow(new TypeError(`${known}; got 5`));
    const limiter = new Limiter({ rpm: 10 });
    expect(() => limiter.sync({}, { provider: "opneai" as never })).toThrow(typo);
    expect(() => parseRateLimitHeaders({}, { provider: "opneai" as never })).toThrow(typo);
    const r = await limiter.acquire(0);
    expect(() => r.sync({}, { provider: "opneai" as never })).toThrow(typo);
    r.release();
    expect(limiter.snapshot().dimensions.rpm?.available).toBe(9);
  });

  it("setLimits validates everything before changing anything", async () => {
    const limiter = new Limiter({ rpm: 60 });
    expect(() => limiter.setLimits({ rpm: 120, tpm: Number.NaN })).toThrow(RangeError);
    expect(() => limiter.setLimits({ bogus: 1 } as never)).toThrow(TypeError);
    expect(limiter.snapshot().dimensions.rpm?.limit).toBe(60);
    expect(limiter.snapshot().dimensions.tpm).toBeUndefined();
  });
});

describe("bad estimates reject, never throw synchronously", () => {
  it.each([[Number.NaN], [-1], [Infinity]])(
    "estimate %s -> RangeError, with or without token budgets",
    async (estimate) => {
      for (const limiter of [new Limiter({ tpm: 1000 }), new Limiter({ rpm: 10 })]) {
        await expect(limiter.acquire(estimate)).rejects.toThrow(RangeError);
        await expect(limiter.run(estimate, async () => ({ value: 1 }))).rejects.toThrow(RangeError);
        expect(() => limiter.tryAcquire(estimate)).toThrow(RangeError);
      }
    },
  );

  it("a number where { input, output } is required -> TypeError", async () => {
    const limiter = new Limiter({ itpm: 1000, otpm: 1000 });
    await expect(limiter.acquire(100)).rejects.toThrow(TypeError);
    await expect(limiter.acquire({ input: 1, output: Number.NaN })).rejects.toThrow(RangeError);
  });

  it("a cost that can never fit -> RequestTooLargeError with the numbers", async () => {
    const limiter = new Limiter({ rpm: 10, tpm: 1000, capacity: { tpm: 500 } });
    const error = await limiter.acquire(501).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTooLargeError);
    expect(error).toBeInstanceOf(LimiterError);
    expect(error).toMatchObject({ dimension: "tpm", cost: 501, capacity: 500, code: "REQUEST_TOO_LARGE" });
    expect(limiter.snapshot()).toMatchObject({ dimensions: { tpm: { available: 500 } }, queued: 0, inFlight: 0 });
  });

  it.each([
    ["100", 'estimate must be a number or { input, output }, got string "100"'],
    [{ input: "1", output: 1 }, 'estimate.input must be a number, got string "1"'],
  ])("estimate %o -> TypeError saying what was given", async (estimate, message) => {
    const limiter = new Limiter({ tpm: 1000 });
    await expect(limiter.acquire(estimate as never)).rejects.toThrow(new TypeError(message));
  });

  it("usage of the wrong type -> TypeError saying what was given", async () => {
    const r = await new Limiter({ tpm: 1000 }).acquire(10);
    expect(() => r.settle("5" as never)).toThrow(
      new TypeError('used must be a number or { input, output }, got string "5"'),
    );
    r.release();
  });

  it("bad options reject", async () => {
    const limiter = new Limiter({ rpm: 10 });
    await expect(limiter.acquire(0, { maxWaitMs: "100" as never })).rejects.toThrow(
      new TypeError('maxWaitMs must be a number, got string "100"'),
    );
    await expect(limiter.run(0, async () => ({ value: 1 }), { retry: { attempts: "3" as never } })).rejects.toThrow(
      new TypeError('retry.attempts must be a number, got string "3"'),
    );
    await expect(
      limiter.run(0, async () => ({ value: 1 }), { retry: { attempts: 3, baseMs: "500" as never } }),
    ).rejects.toThrow(TypeError);
    await expect(limiter.acquire(0, { maxWaitMs: -1 })).rejects.toThrow(RangeError);
    await expect(limiter.acquire(0, { maxWaitMs: Number.NaN })).rejects.toThrow(RangeError);
    await expect(limiter.acquire(0, { signal: {} as AbortSignal })).rejects.toThrow(TypeError);
    await expect(limiter.run(0, "nope" as never)).rejects.toThrow(TypeError);
  });
});

describe("errors are recognisable by class across copies of the package", () => {
  it("instanceof works on an error branded by another build", () => {
    const foreign = new RequestTooLargeError("tpm", 2, 1);
    // Simulate the other build's prototype chain: only the brand is shared.
    const copy = Object.assign(Object.create(Error.prototype), foreign);
    for (const symbol of Object.getOwnPropertySymbols(foreign)) {
      Object.defineProperty(copy, symbol, { value: (foreign as never)[symbol] });
    }
    expect(copy).toBeInstanceOf(RequestTooLargeError);
    expect(copy).toBeInstanceOf(LimiterError);
    expect(copy).not.toBeInstanceOf(QueueFullError);
    expect(new Error("x")).not.toBeInstanceOf(LimiterError);
  });
});

describe("queue limits", () => {
  it("QueueFullError past maxQueue, without disturbing the queue", async () => {
    const limiter = new Limiter({ rpm: 1, initial: "empty", maxQueue: 2 });
    const a = limiter.acquire(0);
    const b = limiter.acquire(0);
    await expect(limiter.acquire(0)).rejects.toBeInstanceOf(QueueFullError);
    expect(limiter.snapshot().queued).toBe(2);
    await time.timers.tickAsync(120_000 + ARRIVAL_DELAY_MS);
    (await a).release();
    (await b).release();
  });

  it("maxWaitMs rejects at once when the buckets already say it cannot be met", async () => {
    const limiter = new Limiter({ tpm: 6000, initial: "empty" });
    const error = await limiter.acquire(100, { maxWaitMs: 999 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ dimension: "tpm", waitMs: 1000, maxWaitMs: 999 });
    expect(time.timers.countTimers()).toBe(0);
  });

  it("maxWaitMs counts what is queued ahead", async () => {
    const limiter = new Limiter({ tpm: 6000, initial: "empty" });
    const first = limiter.acquire(100);
    await expect(limiter.acquire(100, { maxWaitMs: 1500 })).rejects.toBeInstanceOf(WaitTimeoutError);
    const second = limiter.acquire(100, { maxWaitMs: 2000 });
    await time.timers.tickAsync(2000);
    (await first).release();
    (await second).release();
  });

  it("maxWaitMs rejects when the deadline passes, and the next waiter moves up", async () => {
    const limiter = new Limiter({ rpm: 60, concurrency: 1 });
    const holder = await limiter.acquire(0);
    const timedOut = limiter.acquire(0, { maxWaitMs: 5000 }).catch((e: unknown) => e);
    const patient = limiter.acquire(0);
    await time.timers.tickAsync(4999);
    expect(limiter.snapshot().queued).toBe(2);
    await time.timers.tickAsync(1);
    const error = await timedOut;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ dimension: "concurrency", maxWaitMs: 5000 });
    expect(limiter.snapshot().queued).toBe(1);
    holder.release();
    (await patient).release();
    expect(time.timers.countTimers()).toBe(0);
  });
});

describe("abort", () => {
  it("an already-aborted signal rejects with its reason and queues nothing", async () => {
    const limiter = new Limiter({ rpm: 1, initial: "empty" });
    const reason = new Error("gone");
    await expect(limiter.acquire(0, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(limiter.snapshot().queued).toBe(0);
    expect(time.timers.countTimers()).toBe(0);
  });

  it("abort removes the waiter at once, its listener and its timers", async () => {
    const limiter = new Limiter({ rpm: 1, initial: "empty" });
    const controller = new AbortController();
    const pending = limiter.acquire(0, { signal: controller.signal, maxWaitMs: 600_000 }).catch((e: unknown) => e);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    expect(time.timers.countTimers()).toBe(2); // head admission + deadline
    controller.abort();
    expect(limiter.snapshot().queued).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(time.timers.countTimers()).toBe(0);
    expect(await pending).toBeInstanceOf(DOMException);
  });

  it("an aborted head lets the next waiter in when it fits", async () => {
    const limiter = new Limiter({ tpm: 600 });
    const holder = await limiter.acquire(500);
    const controller = new AbortController();
    const big = limiter.acquire(300, { signal: controller.signal }).catch(() => "aborted");
    let smallAdmitted = false;
    const small = limiter.acquire(100).then((r) => {
      smallAdmitted = true;
      return r;
    });
    await time.timers.tickAsync(0);
    expect(smallAdmitted).toBe(false); // FIFO: the big head is not overtaken
    controller.abort();
    await time.timers.tickAsync(0);
    expect(smallAdmitted).toBe(true);
    expect(await big).toBe("aborted");
    holder.release();
    (await small).release();
  });

  it("a signal given to an admitted request's run reaches fn through reservation.signal", async () => {
    const limiter = new Limiter({ rpm: 10 });
    const controller = new AbortController();
    const fn = (r: Reservation): { value: unknown } => {
      controller.abort("stop");
      return { value: r.signal.reason };
    };
    expect(await limiter.run(0, fn, { signal: controller.signal })).toBe("stop");
    await limiter.run(0, (r) => ({ value: expect(r.signal.aborted).toBe(false) }));
  });
});

describe("close", () => {
  it("rejects every waiter, clears timers, rejects later calls; in-flight calls finish", async () => {
    const limiter = new Limiter({ rpm: 1 });
    const inFlight = await limiter.acquire(0);
    const waiting = [limiter.acquire(0), limiter.acquire(0, { maxWaitMs: 1e6 })];
    limiter.close();
    for (const w of waiting) await expect(w).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.acquire(0)).rejects.toBeInstanceOf(LimiterClosedError);
    expect(() => limiter.tryAcquire(0)).toThrow(LimiterClosedError);
    expect(time.timers.countTimers()).toBe(0);
    const idle = limiter.onIdle();
    inFlight.release();
    await idle;
  });
});

describe("reconciliation", () => {
  it("settle below the estimate refunds; above it charges into debt that blocks", async () => {
    const limiter = new Limiter({ tpm: 6000 });
    const r = await limiter.acquire(1000);
    r.settle(400);
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(5600);
    r.settle(7000); // repeated settles: the last one is the actual
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(-1000);
    r.release();
    let admitted = false;
    void limiter.acquire(0).then((x) => {
      admitted = true;
      x.release();
    });
    await time.timers.tickAsync(9_999);
    expect(admitted).toBe(false); // nothing is admitted until the debt is repaid
    await time.timers.tickAsync(1);
    expect(admitted).toBe(true);
  });

  it("settle after release throws; release is idempotent", async () => {
    const limiter = new Limiter({ tpm: 6000, concurrency: 1 });
    const r = await limiter.acquire(10);
    r.release();
    r.release();
    expect(() => r.settle(5)).toThrow(ReservationReleasedError);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, concurrency: { available: 1 } });
  });

  it("malformed usage from fn: the estimate stands, a warning is emitted, the value still returned", async () => {
    const onWarning = vi.fn();
    const limiter = new Limiter({ tpm: 6000, onWarning });
    for (const used of [Number.NaN, -5, "12", { input: 1 }]) {
      await expect(limiter.run(100, async () => ({ value: "ok", used: used as never }))).resolves.toBe("ok");
    }
    expect(onWarning).toHaveBeenCalledTimes(4);
    expect(limiter.snapshot().dimensions.tpm?.available).toBe(5600);
  });

  it("fn throwing keeps the charge and frees the slot; refundOnError gives it back", async () => {
    const limiter = new Limiter({ rpm: 10, tpm: 6000, concurrency: 1 });
    const boom = new Error("boom");
    await expect(limiter.run(1000, async () => Promise.reject(boom))).rejects.toBe(boom);
    expect(limiter.snapshot()).toMatchObject({
      dimensions: { rpm: { available: 9 }, tpm: { available: 5000 } },
      concurrency: { available: 1 },
    });
    await expect(limiter.run(1000, async () => Promise.reject(boom), { refundOnError: true })).rejects.toBe(boom);
    expect(limiter.snapshot()).toMatchObject({
      dimensions: { rpm: { available: 9 }, tpm: { available: 5000 } },
      inFlight: 0,
    });
  });

  it("{ input, output } estimates charge each dimension", async () => {
    const limiter = new Limiter({ tpm: 10_000, itpm: 6000, otpm: 2000 });
    const r = await limiter.acquire({ input: 1000, output: 500 });
    expect(limiter.snapshot()).toMatchObject({
      dimensions: { tpm: { available: 8500 }, itpm: { available: 5000 }, otpm: { available: 1500 } },
    });
    r.settle({ input: 1000, output: 120 });
    expect(limiter.snapshot()).toMatchObject({
      dimensions: { tpm: { available: 8880 }, itpm: { available: 5000 }, otpm: { available: 1880 } },
    });
    r.release();
  });
});

describe("timers", () => {
  it("delays over 2^31-1 ms do not fire early", async () => {
    // 1 request per 30 days: the second one waits ~2.6e9 ms.
    const limiter = new Limiter({ limits: { monthly: { unit: "requests", limit: 1, windowMs: 30 * 86_400_000 } } });
    (await limiter.acquire(0)).release();
    let admitted = false;
    void limiter.acquire(0).then((r) => {
      admitted = true;
      r.release();
    });
    await time.timers.tickAsync(2 ** 31);
    expect(admitted).toBe(false);
    await time.timers.tickAsync(30 * 86_400_000 - 2 ** 31 + ARRIVAL_DELAY_MS);
    expect(admitted).toBe(true);
  });

  it("an idle limiter holds no timer", async () => {
    const limiter = new Limiter({ rpm: 10, tpm: 1000 });
    await limiter.run(100, async () => ({ value: 1, used: 50 }));
    expect(time.timers.countTimers()).toBe(0);
  });
});

describe("setLimits", () => {
  it("rejects waiters that no longer fit; the rest proceed", async () => {
    const limiter = new Limiter({ tpm: 1000, initial: "empty" });
    const big = limiter.acquire(800).catch((e: unknown) => e);
    const small = limiter.acquire(100);
    limiter.setLimits({ tpm: 500 });
    expect(await big).toBeInstanceOf(RequestTooLargeError);
    await time.timers.tickAsync(12_000);
    (await small).release();
  });

  it("raising a limit speeds the head up; null removes a dimension", async () => {
    const limiter = new Limiter({ rpm: 1, tpm: 1000, initial: "empty" });
    let admitted = false;
    void limiter.acquire(10).then((r) => {
      admitted = true;
      r.release();
    });
    limiter.setLimits({ rpm: null, tpm: 60_000 });
    expect(limiter.snapshot().dimensions.rpm).toBeUndefined();
    await time.timers.tickAsync(10);
    expect(admitted).toBe(true);
  });
});

describe("tryAcquire", () => {
  it("never overtakes the queue", async () => {
    const limiter = new Limiter({ tpm: 600 });
    const big = limiter.acquire(600);
    (await big).release();
    const queued = limiter.acquire(100);
    expect(limiter.tryAcquire(0)).toBeUndefined();
    await time.timers.tickAsync(10_000 + ARRIVAL_DELAY_MS);
    (await queued).release();
    const r = limiter.tryAcquire(0);
    expect(r).toBeDefined();
    r?.release();
  });
});
