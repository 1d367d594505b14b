import { StoreUnavailableError } from "./errors.js";

/**
 * Settles like `call()`, or rejects with a {@link StoreUnavailableError} after
 * `ms`. The timer is unref'd (it never keeps a process alive) and cleared as
 * soon as the call settles; a late rejection is still handled.
 */
export function withTimeout<T>(call: () => Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const cause = new DOMException(`Redis did not answer within ${ms} ms`, "TimeoutError");
      reject(new StoreUnavailableError(`Redis store unavailable: ${cause.message}`, { cause }));
    }, ms);
    timer.unref();
    // `call` may throw synchronously (a client in a bad state): that rejects too.
    new Promise<T>((r) => r(call())).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
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
      if (left > 0) return void setTimeout(look, Math.min(READY_POLL_MS, left)).unref();
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
