import { describe, expect, it } from "vitest";
import { Limiter, WaitTimeoutError } from "../src/index.js";
import { ARRIVAL_DELAY_MS } from "./defaults.js";
import { flush, useFakeTime } from "./fake-time.js";

const time = useFakeTime();

// Limiters here say the key is fresh (`initial: "full"`): the start-up probe would hold all but a few.

/** Starts `count` runs that hold their reservations until `done` resolves; returns once all are admitted. */
async function holdRuns(
  limiter: Limiter,
  count: number,
  estimate: number,
  options: { refundOnError?: boolean } = {},
): Promise<() => void> {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  for (let i = 0; i < count; i++) void limiter.run(estimate, async () => ({ value: await done }), options);
  await flush(time.timers);
  expect(limiter.snapshot().inFlight).toBe(count);
  return finish;
}

describe("maxWaitMs predicts from what held reservations can still give back", () => {
  it("rejects at once when even refunding every held token would not make room in time", async () => {
    const limiter = new Limiter({ rpm: 60, tpm: 6_000, initial: "full" });
    const finish = await holdRuns(limiter, 60, 100);
    // The requests are spent and a run's request count is never given back: a second at least.
    const error = await limiter.acquire(0, { maxWaitMs: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error).toMatchObject({ dimension: "rpm", maxWaitMs: 100 });
    expect((error as WaitTimeoutError).waitMs).toBeGreaterThanOrEqual(1_000);
    expect((error as Error).message).toMatch(/^Admission on "rpm" needs \d+ ms \(at .+\), over maxWaitMs 100$/);
    expect(limiter.snapshot().queued).toBe(0);
    finish();
    await limiter.onIdle();
  });

  it("waits when held tokens could come back, and at the deadline says what the wait still needs", async () => {
    const limiter = new Limiter({ tpm: 6_000, initial: "full", arrivalDelayMs: 0 });
    const finish = await holdRuns(limiter, 60, 100);
    // Settles could refund 6,000 tokens at once: not predictable, so it waits.
    const pending = limiter.acquire(100, { maxWaitMs: 100 }).catch((e: unknown) => e);
    await time.timers.tickAsync(100);
    const error = (await pending) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    // 100 tokens at 100/s: 1,000 ms in all, 900 of them still to come at the deadline.
    expect(error).toMatchObject({ dimension: "tpm", waitMs: 1_000, maxWaitMs: 100 });
    expect(error.availableAt).toBe(Date.now() + 900);
    finish();
    await limiter.onIdle();
  });

  it("counts held request counts as returnable where refundOnError can give them back", async () => {
    const limiter = new Limiter({ rpm: 60, initial: "full" });
    const finish = await holdRuns(limiter, 60, 0, { refundOnError: true });
    const pending = limiter.acquire(0, { maxWaitMs: 100 }).catch((e: unknown) => e);
    await flush(time.timers);
    expect(limiter.snapshot().queued).toBe(1);
    await time.timers.tickAsync(100);
    expect(await pending).toMatchObject({ dimension: "rpm", maxWaitMs: 100 });
    finish();
    await limiter.onIdle();
  });

  it("a missing concurrency slot cannot be predicted: it times out at the deadline, saying so", async () => {
    const limiter = new Limiter({ concurrency: 4, initial: "full" });
    const finish = await holdRuns(limiter, 4, 0);
    const pending = limiter.acquire(0, { maxWaitMs: 250 }).catch((e: unknown) => e);
    await time.timers.tickAsync(249);
    expect(limiter.snapshot().queued).toBe(1);
    await time.timers.tickAsync(1);
    const error = (await pending) as WaitTimeoutError;
    expect(error).toMatchObject({ dimension: "concurrency", waitMs: 250, maxWaitMs: 250 });
    expect(error.message).toBe("All 4 concurrency slots held, none freed within maxWaitMs 250");
    finish();
    await limiter.onIdle();
  });
});

describe("a limiter-wide maxWaitMs", () => {
  it("applies to every call that does not set its own", async () => {
    const limiter = new Limiter({ rpm: 1, maxWaitMs: 1_000 });
    (await limiter.acquire(0)).release();
    await expect(limiter.acquire(0)).rejects.toMatchObject({ dimension: "rpm", maxWaitMs: 1_000 });
    const patient = limiter.acquire(0, { maxWaitMs: Infinity });
    await time.timers.tickAsync(60_000 + ARRIVAL_DELAY_MS);
    (await patient).release();
  });

  it("says a spent daily budget is spent, and when it returns", async () => {
    const limiter = new Limiter({ rpd: 24, maxWaitMs: 60_000 });
    for (let i = 0; i < 24; i++) (await limiter.acquire(0)).release();
    const error = (await limiter.acquire(0).catch((e: unknown) => e)) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    // 24 a day refill one an hour (the prediction, a lower bound, leaves out the arrival delay).
    expect(error.waitMs).toBe(3_600_000);
    expect(error.availableAt).toBe(Date.now() + 3_600_000);
    expect(error.message).toBe(
      `The daily budget "rpd" is spent: it has room again in 1 h 0 min (at ${new Date(error.availableAt!).toISOString()}), over maxWaitMs 60000`,
    );
  });

  it("rejects a bad value at once", () => {
    expect(() => new Limiter({ rpm: 1, maxWaitMs: -1 })).toThrow(RangeError);
    expect(() => new Limiter({ rpm: 1, maxWaitMs: Number.NaN })).toThrow(RangeError);
    expect(() => new Limiter({ rpm: 1, maxWaitMs: "5" as unknown as number })).toThrow(TypeError);
  });
});
