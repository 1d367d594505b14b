import { describe, expect, it, vi } from "vitest";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();
const MINUTE = 60_000;

function limiter(options: LimiterOptions = {}): Limiter {
  return new Limiter({ rpm: 600, tpm: 100_000, initial: "full", arrivalDelayMs: 0, clock: time.clock, ...options });
}

/** `count` calls of `estimate` tokens that use `used`. */
async function calls(on: Limiter, count: number, estimate: number, used: number): Promise<void> {
  for (let i = 0; i < count; i++) await on.run(estimate, () => ({ value: undefined, used }));
}

describe("snapshot() per dimension", () => {
  it("keeps the fields it had", async () => {
    const on = limiter();
    expect(on.snapshot()).toMatchObject({
      dimensions: { rpm: { limit: 600, windowMs: MINUTE, capacity: 600, available: 600 } },
      queued: 0,
      inFlight: 0,
    });
  });

  it("tells utilisation (net charge over the window / limit) and efficiency (used / reserved)", async () => {
    const on = limiter();
    expect(on.snapshot().dimensions.tpm).toEqual(expect.objectContaining({ utilisation: 0, queued: 0 }));
    expect(on.snapshot().dimensions.tpm).not.toHaveProperty("efficiency");
    await calls(on, 10, 4_000, 1_000);
    const { rpm, tpm } = on.snapshot().dimensions;
    expect(tpm).toMatchObject({ utilisation: 0.1, efficiency: 0.25 });
    expect(rpm).toMatchObject({ utilisation: 10 / 600 });
    expect(rpm).not.toHaveProperty("efficiency");
  });

  it("counts a call still in flight in utilisation at its reservation, and in efficiency once released", async () => {
    const on = limiter();
    const open = await on.acquire(10_000);
    expect(on.snapshot().dimensions.tpm).toMatchObject({ utilisation: 0.1 });
    expect(on.snapshot().dimensions.tpm).not.toHaveProperty("efficiency");
    await time.at(5_000);
    open.settle(2_500);
    open.release();
    expect(on.snapshot().dimensions.tpm).toMatchObject({ utilisation: 0.025, efficiency: 0.25 });
  });

  it("forgets what was admitted more than a window ago, part of the oldest tenth pro rata", async () => {
    const on = limiter();
    await calls(on, 10, 1_000, 1_000);
    await time.at(MINUTE + 3_000); // half of the oldest tenth (6 s) still inside
    expect(on.snapshot().dimensions.tpm!.utilisation).toBeCloseTo(0.05, 10);
    await time.at(MINUTE + 6_000);
    expect(on.snapshot().dimensions.tpm).toMatchObject({ utilisation: 0 });
    expect(on.snapshot().dimensions.tpm).not.toHaveProperty("efficiency");
  });

  it("tells what the queue asks of each dimension, and the longest wait", async () => {
    const on = limiter({ rpm: 60, capacity: { rpm: 1 } });
    const first = await on.acquire(500);
    expect(on.snapshot().oldestWaitMs).toBe(0);
    const waiting = [on.acquire(1_000)];
    await time.at(400);
    waiting.push(on.acquire(2_000));
    await time.at(700);
    const snapshot = on.snapshot();
    expect(snapshot).toMatchObject({ queued: 2, oldestWaitMs: 700 });
    expect(snapshot.dimensions.rpm!.queued).toBe(2);
    expect(snapshot.dimensions.tpm!.queued).toBe(3_000);
    await time.at(2_000);
    for (const reservation of [first, ...(await Promise.all(waiting))]) reservation.release();
    expect(on.snapshot()).toMatchObject({ queued: 0, oldestWaitMs: 0, dimensions: { tpm: { queued: 0 } } });
  });
});

describe("the low-efficiency warning", () => {
  /** One call of `estimate` every second from now until `untilMs`, each using `used`. */
  async function steady(on: Limiter, untilMs: number, estimate: number, used: number): Promise<void> {
    for (let at = time.clock.now(); at < untilMs; at += 1_000) {
      await time.at(at);
      await calls(on, 1, estimate, used);
    }
  }

  it("comes once a whole window used under half of what it reserved, then not again for an hour", async () => {
    const onWarning = vi.fn();
    // max_tokens 4096 for answers of 300: 40 calls a minute reserve ~164k of 200k TPM and use 12k.
    const on = limiter({ tpm: 200_000, onWarning });
    await steady(on, MINUTE, 4_096, 300);
    expect(onWarning).not.toHaveBeenCalled(); // not a whole window yet
    await steady(on, 2 * MINUTE, 4_096, 300);
    expect(onWarning).toHaveBeenCalledTimes(1);
    const [warning] = onWarning.mock.calls[0]! as [Error];
    expect(warning.name).toBe("ReservationEfficiencyWarning");
    expect(warning.message).toContain('"tpm"');
    expect(warning.message).toContain("trimming max_tokens is the cheapest throughput there is");
    await steady(on, 30 * MINUTE, 4_096, 300);
    expect(onWarning).toHaveBeenCalledTimes(1);
    await steady(on, 65 * MINUTE, 4_096, 300);
    expect(onWarning).toHaveBeenCalledTimes(2);
  });

  it("stays quiet when calls use most of what they reserve, or reserve too little to matter", async () => {
    const onWarning = vi.fn();
    const efficient = limiter({ tpm: 200_000, onWarning });
    const small = limiter({ tpm: 10_000_000, onWarning });
    for (let at = 0; at < 3 * MINUTE; at += 1_000) {
      await time.at(at);
      await calls(efficient, 1, 4_096, 3_000);
      await calls(small, 1, 4_096, 300);
    }
    expect(onWarning).not.toHaveBeenCalled();
  });
});
