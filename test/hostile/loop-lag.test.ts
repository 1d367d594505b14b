// A lateness the limiter cannot trust: a process suspended for an hour (a laptop's sleep, a stopped container) fires
// its timers an hour late. That is no lag of the loop: the allowance widens by a minute at most, and lets go.
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts" });

describe("a process suspended for an hour while calls wait", () => {
  it("widens the arrival allowance by a minute at most, admits on, and lets the widening go", async () => {
    const limiter = new Limiter({ rpm: 60, initial: "full", clock: time.clock });
    const admittedAt: number[] = [];
    const calls = Array.from({ length: 70 }, () =>
      limiter.run(1, () => {
        admittedAt.push(time.clock.now());
        return { value: undefined };
      }),
    );
    await time.timers.tickAsync(0);
    expect(admittedAt).toHaveLength(60);
    time.timers.jump(3_600_000);
    await time.timers.tickAsync(0);
    expect(limiter.snapshot().arrivalAllowanceMs).toBe(500 + 60_000);
    // The 60 draws arrived long ago by any measure, but count as on their way for the minute the stall counts for:
    // the hour's refill is capped meanwhile, then the rest goes at the rate.
    await time.timers.tickAsync(75_000);
    await Promise.all(calls);
    expect(admittedAt).toHaveLength(70);
    expect(admittedAt.at(-1)! - 3_600_000).toBeLessThanOrEqual(61_000 + 10_000);
    await time.timers.tickAsync(200_000);
    expect(limiter.snapshot().arrivalAllowanceMs).toBeUndefined();
    await limiter.close();
  });

  it("reads a clock that runs backwards as no lag", async () => {
    let offset = 0;
    const clock = { now: () => time.timers.now + offset, wallNow: () => Date.UTC(2026, 0, 1) + time.timers.now };
    const limiter = new Limiter({ rpm: 60, initial: "full", clock });
    const calls = Array.from({ length: 62 }, () => limiter.run(1, () => ({ value: undefined })));
    await time.timers.tickAsync(0);
    offset = -5_000;
    await time.timers.tickAsync(3_000);
    expect(limiter.snapshot().arrivalAllowanceMs).toBeUndefined();
    offset = 0;
    await time.timers.tickAsync(10_000);
    await Promise.all(calls);
    await limiter.close();
  });
});
