import { describe, expect, it } from "vitest";
import { Limiter, WaitTimeoutError, type PauseState } from "../src/index.js";
import { createProvider } from "../src/testing/index.js";
import { flush, useFakeTime } from "./fake-time.js";

/** Saturday 2026-03-07, 10:00 in Los Angeles (PST): Pacific midnight is 14 hours on. */
const WALL_START = Date.UTC(2026, 2, 7, 18);
const PACIFIC_MIDNIGHT = Date.UTC(2026, 2, 8, 8);
const HOUR = 3_600_000;

const time = useFakeTime({ fake: "timeouts", wallStartMs: WALL_START });

const CALL = { prompt: 10, maxTokens: 10, actual: 5, model: "gemini-2.5-flash" };

describe("a Gemini per-day 429 pauses until Pacific midnight", () => {
  it("holds the requests until then whatever its retryDelay, rejects a waiter whose maxWaitMs is shorter, admits one without after midnight", async () => {
    // Two requests a day, refilled one per 12 hours: the third call's retryDelay is 12 h, Pacific midnight 14 h off.
    const provider = createProvider({ rpd: 2, dialect: "gemini", clock: time.clock });
    const limiter = new Limiter({ rpm: 100, initial: "full", clock: time.clock });
    const paused: PauseState[] = [];
    limiter.on("paused", (pause) => paused.push(pause));

    const call = async (options?: { maxWaitMs?: number }): Promise<number> => {
      const reservation = await limiter.acquire(0, options);
      const result = await provider.call(CALL);
      reservation.sync(result.headers, { status: result.status, body: result.body });
      reservation.release();
      return result.status;
    };
    expect(await call()).toBe(200);
    expect(await call()).toBe(200);
    expect(await call()).toBe(429);

    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({ dimensions: ["rpm"], until: PACIFIC_MIDNIGHT, probed: false });
    expect(limiter.snapshot().pauses).toMatchObject([{ until: PACIFIC_MIDNIGHT }]);

    let rejectedAt: number | undefined;
    const impatient = limiter.acquire(0, { maxWaitMs: 13 * HOUR }).catch((e: unknown) => {
      rejectedAt = time.clock.wallNow();
      return e;
    });
    let admitted = false;
    const patient = limiter.acquire(0).then((reservation) => {
      admitted = true;
      return reservation;
    });
    await flush(time.timers);
    // The pause is known to outlast its maxWaitMs: rejected at once, not at its deadline.
    expect(rejectedAt).toBe(PACIFIC_MIDNIGHT - 14 * HOUR);
    expect(await impatient).toBeInstanceOf(WaitTimeoutError);

    // The body's own hint (12 h) is over, the day is not.
    await time.timers.tickAsync(14 * HOUR - 1_000);
    expect(admitted).toBe(false);
    await time.timers.tickAsync(1_000);
    await flush(time.timers);
    expect(admitted).toBe(true);
    expect(time.clock.wallNow()).toBe(PACIFIC_MIDNIGHT);
    const reservation = await patient;
    const result = await provider.call(CALL);
    expect(result.status).toBe(200);
    reservation.release();
  });

  it("no probe lifts it, resume() does", async () => {
    const provider = createProvider({ rpd: 1, dialect: "gemini", clock: time.clock });
    const limiter = new Limiter({ rpm: 100, initial: "full", clock: time.clock });
    for (const expected of [200, 429]) {
      const reservation = await limiter.acquire(0);
      const result = await provider.call(CALL);
      reservation.sync(result.headers, { status: result.status, body: result.body });
      reservation.release();
      expect(result.status).toBe(expected);
    }
    // A response showing room, as a probe would bring, ends nothing.
    limiter.sync({}, { status: 200 });
    await time.timers.tickAsync(2 * 60_000);
    // Its retryDelay (a day, for one request a day) is longer than the wait to midnight: the longer hint stands.
    expect(limiter.snapshot().pauses).toMatchObject([{ until: WALL_START + 24 * HOUR, probed: false }]);
    limiter.resume();
    expect(limiter.snapshot().pauses).toBeUndefined();
    const reservation = await limiter.acquire(0, { maxWaitMs: 0 });
    reservation.release();
  });

  it("a spend stop sent as a 429 (xAI's credits, Anthropic's extra usage) pauses nothing", () => {
    const limiter = new Limiter({ rpm: 100, initial: "full", clock: time.clock });
    const paused: PauseState[] = [];
    limiter.on("paused", (pause) => paused.push(pause));
    const xai = {
      code: "Some resource has been exhausted",
      error:
        "Your team 16f2151a has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit.",
    };
    const anthropic = {
      type: "error",
      error: { type: "rate_limit_error", message: "Extra usage is required for long context requests." },
    };
    for (const body of [xai, anthropic]) limiter.sync({ "retry-after": "60" }, { status: 429, body });
    expect(paused).toEqual([]);
    expect(limiter.snapshot().pauses).toBeUndefined();
    expect(limiter.tryAcquire(0)).toBeDefined();
  });
});
