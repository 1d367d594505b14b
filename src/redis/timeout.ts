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
