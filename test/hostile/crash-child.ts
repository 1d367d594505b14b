/**
 * Run by test/hostile/crash.test.ts in a child process, on real timers: a deadline timer that throws
 * is an uncaught exception, and only a process of its own shows whether it exits. Prints one line per
 * outcome; exits 0 when nothing escaped.
 */
import { Limiter, type Clock } from "../../src/index.js";

/** The last epoch ms a `Date` holds: an `availableAt` a few seconds ahead lies past it. */
const DATE_END_MS = 8.64e15;

function report(what: string, promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => console.log(`${what}: admitted`),
    (error: Error) => console.log(`${what}: ${error.name}: ${error.message}`),
  );
}

const scenarios: Record<string, () => Promise<void>> = {
  /** A usage of 1e20 tokens settled while a waiter with a deadline waits (the deadline timer builds its error). */
  async "huge-usage"() {
    const limiter = new Limiter({ tpm: 1_000, initial: "full", onWarning: () => {} });
    const held = await limiter.acquire(10);
    const waiting = report("waiter", limiter.acquire(1_000, { maxWaitMs: 20 }));
    held.settle(1e20);
    held.release();
    await waiting;
  },
  /** A wall clock at the end of the `Date` range: every `availableAt` lies past it. */
  async "date-end"() {
    const clock: Clock = { now: () => performance.now(), wallNow: () => DATE_END_MS - 1_000 };
    const limiter = new Limiter({ tpm: 1_000, initial: "full", clock });
    const held = await limiter.acquire(500);
    await report("deadline", limiter.acquire(1_000, { maxWaitMs: 20 }));
    held.release();
  },
};

const scenario = scenarios[process.argv[2] ?? ""];
if (!scenario) throw new Error(`unknown scenario ${process.argv[2]}`);
await scenario();
console.log("done");
