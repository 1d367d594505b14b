/** Milliseconds since it was made, on the monotonic clock. */
export interface Stopwatch {
  ms(): number;
}

export function stopwatch(): Stopwatch {
  const start = performance.now();
  return { ms: () => performance.now() - start };
}
