/**
 * Read once, at load: on Node 20 the global is a getter run on every read (~50 ns). The object is Node's
 * `perf_hooks` one, whose `now` fake timers replace in place, so reading `now` at call time still follows them.
 * `Date` where a runtime has no `performance` (it then only needs to be non-decreasing, which `Date.now()` is
 * nearly always; every runtime this package is tested on has it).
 */
const performanceNow: { now(): number } = globalThis.performance ?? Date;

/**
 * Where the limiter reads time. `now` must be monotonic (it drives refill and
 * timers); `wallNow` is only used to turn absolute reset timestamps from
 * providers into durations.
 */
export interface Clock {
  /** Monotonic milliseconds (any origin). Default: `performance.now()`. */
  now(): number;
  /** Wall-clock epoch milliseconds. Default: `Date.now()`. */
  wallNow(): number;
}

/** The real clock: `performance.now()` and `Date.now()`, read at call time so fake timers can replace them. */
export const systemClock: Clock = {
  now: () => performanceNow.now(),
  wallNow: () => Date.now(),
};

/** The longest delay Node's timers take (longer ones fire at once): longer waits are covered in hops. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
