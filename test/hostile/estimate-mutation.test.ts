import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { flush, useFakeTime } from "../fake-time.js";

const time = useFakeTime();

function split(): Limiter {
  return new Limiter({ itpm: 600, otpm: 600, initial: "full", arrivalDelayMs: 0, onWarning: () => {} });
}

describe("an estimate object changed after the call was made changes nothing", () => {
  it("mutated to NaN while queued: the waiter is admitted on what it was, and the queue moves on", async () => {
    const limiter = split();
    (await limiter.acquire({ input: 600, output: 0 })).release();
    const estimate = { input: 100, output: 100 };
    let admitted = 0;
    const first = limiter.acquire(estimate).then((r) => (admitted++, r));
    const second = limiter.acquire({ input: 10, output: 10 }).then((r) => (admitted++, r));
    await flush(time.timers);
    expect(limiter.snapshot().queued).toBe(2);
    estimate.input = NaN;
    estimate.output = -1;
    // 110 input tokens at 10/s.
    await time.timers.tickAsync(11_000);
    expect(admitted).toBe(2);
    const reservation = await first;
    expect(reservation.estimate).toEqual({ input: 100, output: 100 });
    (await second).release();
    reservation.release();
    expect(limiter.snapshot().dimensions.itpm!.available).toBe(0);
  });

  it("a getter that answers otherwise once queued is refused at once, not queued", async () => {
    const limiter = split();
    (await limiter.acquire({ input: 600, output: 0 })).release();
    let reads = 0;
    const estimate = {
      get input() {
        return reads++ < 1 ? 10 : NaN;
      },
      output: 0,
    };
    await expect(limiter.acquire(estimate)).rejects.toThrow(RangeError);
    expect(limiter.snapshot().queued).toBe(0);
  });

  it("mutated by fn before a 429 retry: the retry is refused with the estimate's error, the queue moves", async () => {
    const limiter = split();
    const estimate = { input: 10, output: 10 };
    const error = Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "1" } });
    const run = limiter.run(
      estimate,
      async () => {
        estimate.input = NaN;
        throw error;
      },
      { retry: { attempts: 2 } },
    );
    await expect(run).rejects.toThrow(RangeError);
    await time.timers.tickAsync(1_000);
    (await limiter.acquire({ input: 1, output: 1 })).release();
    expect(limiter.snapshot().queued).toBe(0);
  });

  it("mutated after admission: the settle's bound is what the call was admitted on", async () => {
    const warnings: Error[] = [];
    const limiter = new Limiter({ tpm: 10_000, initial: "full", onWarning: (w) => warnings.push(w) });
    const estimate = { input: 100, output: 0 };
    const r = await limiter.acquire(estimate);
    estimate.input = NaN;
    r.settle(1e9);
    r.release();
    // 16 * 100 < the capacity of 10,000: a full bucket charged, a finite level.
    expect(limiter.snapshot().dimensions.tpm!.available).toBe(0);
    expect(warnings[0]!.message).toMatch(/\(estimate 100, capacity 10000, maxUsage 10000000\); charging 10000$/);
  });
});
