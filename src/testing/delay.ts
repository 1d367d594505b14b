/**
 * Resolves after `ms` on the global `setTimeout` (looked up at call time, so
 * fake timers drive it); at once, without a timer, for 0. With `keepAlive`
 * false the timer does not hold the process open on its own.
 */
export function delay(ms: number, keepAlive = true): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    // Node's and Bun's timers can be unref'd; other runtimes' are numbers or have no `unref`.
    if (!keepAlive) (timer as { unref?: () => void }).unref?.();
  });
}
