// The arrival allowance follows the event loop: timers that fire late (a process that could run nothing meanwhile)
// hold back the draws still on their way and widen the allowance for the next ones, bounded and decaying. Injected
// on virtual time by a clock that jumps ahead of the fake timers: a frozen process, whose timers then fire as late
// as the jump, whose calls still in its send queue reach the provider as late, while the provider's meters refill.
// Before the allowance followed the loop (main at 79b0c51), the frozen burst below drew 20 429s on seed 1.
import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import { Alarm } from "../src/admission/alarm.js";
import { UnseenDraws } from "../src/buckets/unseen-draws.js";
import { LAG_HALF_LIFE_MS, LoopLag, MAX_LAG_MS } from "../src/core/loop-lag.js";
import { between, createProvider, seededRandom } from "../src/testing/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime({ fake: "timeouts" });

/**
 * The process runs nothing for `ms`: time moves on, and every timer due meanwhile fires once it ends, late (the
 * provider's arrival timers too: calls still in the process's send queue leave then).
 */
function freeze(ms: number): void {
  time.timers.jump(ms);
}

describe("LoopLag", () => {
  it("widens by the latest lateness, halves it every half-life and forgets it below a millisecond", () => {
    const lag = new LoopLag();
    expect(lag.widening(0)).toBe(0);
    lag.fired(0, 100, 900);
    expect(lag.widening(900)).toBe(800);
    expect(lag.widening(900 + LAG_HALF_LIFE_MS)).toBeCloseTo(400, 6);
    // A smaller lateness than what is left of the peak does not lower it.
    lag.fired(900, 1_000, 1_100);
    expect(lag.widening(900 + LAG_HALF_LIFE_MS)).toBeCloseTo(400, 6);
    expect(lag.widening(900 + 10 * LAG_HALF_LIFE_MS)).toBe(0);
  });

  it("bounds a stall at a minute and takes early, on-time and unreadable firings as no lag", () => {
    const lag = new LoopLag();
    const stalls: number[] = [];
    lag.onStall((_since, ms) => stalls.push(ms));
    lag.fired(0, 10, 10);
    lag.fired(0, 10, 5);
    lag.fired(0, 10, Number.NaN);
    expect(lag.widening(10)).toBe(0);
    expect(stalls).toEqual([]);
    lag.fired(5, 10, 10 + 3_600_000);
    expect(lag.widening(10 + 3_600_000)).toBe(MAX_LAG_MS);
    expect(stalls).toEqual([MAX_LAG_MS]);
  });

  it("counts one stall once however many timers it made late, and only the part no report covered", () => {
    const lag = new LoopLag();
    const stalls: [number, number][] = [];
    lag.onStall((since, ms) => stalls.push([since, ms]));
    lag.fired(900, 1_000, 1_200); // 200 ms late, set at 900: busy from 900 on
    lag.fired(1_100, 1_150, 1_200); // the same stall, seen by a timer set later
    lag.fired(0, 1_000, 1_200); // the same, but set long before: as long before its due time, from 800
    lag.fired(2_000, 2_100, 2_150); // a new stall
    expect(stalls).toEqual([
      [900, 300],
      [800, 100],
      [2_050, 100],
    ]);
  });
});

describe("Alarm", () => {
  it("reports no lateness on virtual time, and a freeze as late as it lasted", async () => {
    const clock = time.clock;
    const lag = new LoopLag();
    let fired = 0;
    const alarm = new Alarm(clock, () => fired++, lag);
    for (let i = 0; i < 50; i++) {
      alarm.set(clock.now() + 0.3 + i * 7);
      await time.timers.tickAsync(i * 7 + 1);
    }
    expect(fired).toBe(50);
    expect(lag.widening(clock.now())).toBe(0);
    alarm.set(clock.now() + 100);
    freeze(2_000);
    expect(fired).toBe(51);
    expect(lag.widening(clock.now())).toBe(1_900);
  });
});

describe("UnseenDraws under lag", () => {
  it("keeps arrivals in order when the allowance narrows, and holds back what a stall delayed", () => {
    const unseen = new UnseenDraws(500);
    unseen.add(1, 0, 3_000);
    unseen.add(1, 100, 500); // would arrive at 600, before the batch ahead of it
    expect(unseen.arrivalAt(1)).toBe(3_000);
    unseen.add(1, 4_000);
    unseen.stalled(50, 1_000);
    // Due after 50: both held back by the stall; the first one too.
    expect([unseen.arrivalAt(0), unseen.arrivalAt(1), unseen.arrivalAt(2)]).toEqual([4_000, 4_000, 5_500]);
    unseen.stalled(4_200, 300);
    expect([unseen.arrivalAt(0), unseen.arrivalAt(1), unseen.arrivalAt(2)]).toEqual([4_000, 4_000, 5_800]);
  });

  it("takes an early arrival from the batch that holds the draw, whatever its allowance", () => {
    const unseen = new UnseenDraws(500);
    unseen.add(5, 0, 2_000);
    unseen.add(7, 100);
    unseen.arrivedEarly(5, 0);
    expect(unseen.total).toBe(7);
    unseen.arrivedEarly(7, 100);
    expect(unseen.total).toBe(0);
  });
});

const RPM = 600;
const CALLS = 800;
/** How long the process stands still just after the burst is admitted. */
const FREEZE_MS = 3_000;

interface Run {
  readonly rejected: number;
  /** `snapshot().arrivalAllowanceMs` right after the freeze's first late timer, a minute on, and three on. */
  readonly allowances: readonly (number | undefined)[];
  /** Whether any snapshot taken at a completion showed a widened allowance. */
  readonly everWidened: boolean;
}

/**
 * The README's manual form against the simulator: 800 calls at once at rpm 600, each 0–300 ms on its way and 0–300
 * ms to answer; `freezeMs` after the burst is admitted, before its calls have left.
 */
async function burst(freezeMs: number, seed = 1): Promise<Run> {
  const clock = time.clock;
  const random = seededRandom(seed);
  const provider = createProvider({
    rpm: RPM,
    clock,
    arrivalDelayMs: () => between(random, 0, 300),
    latencyMs: () => between(random, 0, 300),
  });
  const limiter = new Limiter({ rpm: RPM, provider: "openai", initial: "full", clock });
  let everWidened = false;
  const done = Promise.all(
    Array.from({ length: CALLS }, () =>
      limiter.run(
        1,
        async (reservation) => {
          const result = await provider.call({ prompt: 10, maxTokens: 10, actual: 5 });
          if (result.status === 429) throw Object.assign(new Error("429"), { status: 429, headers: result.headers });
          reservation.sync(result.headers);
          everWidened ||= limiter.snapshot().arrivalAllowanceMs !== undefined;
          return { value: undefined };
        },
        { retry: { attempts: 10 } },
      ),
    ),
  );
  // The burst's calls are on their way (after the microtasks that send them), the head's timer is set for when
  // they have arrived and one call has refilled (500 + 100 ms): then the freeze.
  await time.timers.tickAsync(0);
  if (freezeMs > 0) freeze(freezeMs);
  await time.timers.tickAsync(0);
  const allowances = [limiter.snapshot().arrivalAllowanceMs];
  await time.timers.tickAsync(60_000);
  allowances.push(limiter.snapshot().arrivalAllowanceMs);
  await time.timers.tickAsync(120_000);
  allowances.push(limiter.snapshot().arrivalAllowanceMs);
  await done;
  await limiter.close();
  expect(provider.stats().served).toBe(CALLS);
  return { rejected: provider.stats().rejected, allowances, everWidened };
}

describe("a process frozen just after admitting a burst", () => {
  it("draws no 429: the freeze holds the burst's draws back, and widens the allowance, which decays", async () => {
    for (const seed of [1, 2, 3]) {
      const run = await burst(FREEZE_MS, seed);
      expect(run.rejected).toBe(0);
      const [atFreeze, minuteOn, threeOn] = run.allowances;
      // The head's timer, due at 600, fired at the freeze's end.
      expect(atFreeze).toBe(500 + FREEZE_MS - 600);
      // Halved every 10 s, renewed by nothing: a minute later a 64th of it is left; three minutes on, nothing.
      expect(minuteOn).toBeGreaterThan(500);
      expect(minuteOn).toBeLessThan(500 + FREEZE_MS / 50);
      expect(threeOn).toBeUndefined();
    }
  });

  it("on virtual time alone never widens the allowance, and draws no 429", async () => {
    const run = await burst(0);
    expect(run.rejected).toBe(0);
    expect(run.everWidened).toBe(false);
    expect(run.allowances).toEqual([undefined, undefined, undefined]);
  });
});
