import { StoreUnavailableError } from "./errors.js";

/**
 * Settles like `call()`, or rejects with a {@link StoreUnavailableError} after
 * `ms`. The timer is unref'd where timers can be (it never keeps a Node, Bun
 * or Deno process alive) and cleared as soon as the call settles; a late
 * rejection is still handled.
 *
 * A timer that fires late, after the event loop was busy (a burst of calls
 * being sent), runs before the loop reads the sockets: the reply may be
 * waiting there. So the timeout rejects only after one more turn of the loop
 * (`setImmediate` runs after the sockets are read; a zero-delay timer where
 * there is no `setImmediate`), if the reply is still missing.
 */
export function withTimeout<T>(call: () => Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      afterIo(() => {
        if (settled) return;
        const cause = new DOMException(`Redis did not answer within ${ms} ms`, "TimeoutError");
        reject(new StoreUnavailableError(`Redis store unavailable: ${cause.message}`, { cause }));
      });
    }, ms);
    unref(timer);
    // `call` may throw synchronously (a client in a bad state): that rejects too.
    new Promise<T>((r) => r(call())).then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** How often a client that is not ready is looked at again. */
const READY_POLL_MS = 10;

/**
 * Resolves once `isReady()` says yes, or rejects with a
 * {@link StoreUnavailableError} when it still says no after `ms`. Looks every
 * few milliseconds (the client's interface has no events); the timers are
 * unref'd like the command's own.
 */
export function untilReady(isReady: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  return new Promise<void>((resolve, reject) => {
    const look = (): void => {
      if (isReady()) return resolve();
      const left = deadline - performance.now();
      if (left > 0) return unref(setTimeout(look, Math.min(READY_POLL_MS, left)));
      const cause = new Error("The Redis client is not connected");
      reject(
        new StoreUnavailableError(
          `Redis store unavailable: the client did not connect within ${ms} ms (nothing sent)`,
          { cause },
        ),
      );
    };
    look();
  });
}

/** Node's and Bun's timers can be unref'd; Deno's, Workers' and the Edge runtime's are numbers or have no `unref`. */
function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

/** Runs `task` after the sockets are read: `setImmediate` where there is one, unref'd; a zero-delay timer elsewhere. */
function afterIo(task: () => void): void {
  const { setImmediate } = globalThis as { setImmediate?: (task: () => void) => unknown };
  unref(typeof setImmediate === "function" ? setImmediate(task) : setTimeout(task, 0));
}
