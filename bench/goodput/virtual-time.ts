/** Runs async work on virtual time: timers, `Date` and `performance` are faked and driven in steps. */
import FakeTimers from "@sinonjs/fake-timers";

/** How far each `tickAsync` moves; timers inside a step still fire at their own instants. */
const STEP_MS = 1_000;
/** A run still going after this much simulated time has hung. */
const GIVE_UP_MS = 6 * 3_600_000;

/**
 * Installs fake timers, advances virtual time until `body` settles, and
 * uninstalls them (dropping whatever timers the libraries left behind).
 */
export async function onVirtualTime<T>(body: () => Promise<T>): Promise<T> {
  const clock = FakeTimers.install({
    now: Date.UTC(2026, 0, 1),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  try {
    let settled = false;
    const result = body().finally(() => {
      settled = true;
    });
    result.catch(() => {}); // observed below; this only keeps it from counting as unhandled meanwhile
    while (!settled) {
      if (performance.now() > GIVE_UP_MS) throw new Error(`still running after ${GIVE_UP_MS} ms of virtual time`);
      await clock.tickAsync(STEP_MS);
    }
    return await result;
  } finally {
    clock.uninstall();
  }
}
