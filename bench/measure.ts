/** Timing and heap helpers for the benchmarks. */

/** Runs `global.gc` (the bench needs `--expose-gc`), throwing a clear error without it. */
export function collect(): void {
  if (typeof globalThis.gc !== "function")
    throw new Error("run with `node --expose-gc --import tsx bench/overhead.ts`");
  globalThis.gc();
}

/** Completed calls between two reads of the clock (a read costs ~100 ns here, a tenth of a call). */
const CLOCK_EVERY = 64;

/** Calls per second of wall time, and per second of this process's CPU time (less moved by the neighbours' load). */
export interface Rate {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * Rates when `callers` async loops each await `call` back to back for about
 * `durationMs`. The loops poll the clock, because a call that settles only
 * through microtasks never lets a timer fire.
 */
export async function throughput(call: () => Promise<unknown>, callers: number, durationMs: number): Promise<Rate> {
  let completed = 0;
  let running = true;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const end = start + durationMs;
  const caller = async (): Promise<void> => {
    while (running) {
      await call();
      if (++completed % CLOCK_EVERY === 0 && performance.now() >= end) running = false;
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return { wall: completed / (wallMs / 1000), cpu: completed / ((cpu.user + cpu.system) / 1e6) };
}

/** Keeps queued promises reachable while the heap is measured, as awaiting callers would. */
let retained: unknown[] = [];

async function settledHeap(): Promise<number> {
  // Let libraries that queue on a later tick (after an async check) finish queueing.
  await new Promise((resolve) => setTimeout(resolve, 20));
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/**
 * Heap bytes per extra queued waiter: `warmup` waiters first (so code, feedback
 * and the library's lazily grown structures are in place), then the growth of
 * the heap over the next `count`. The holding array is allocated up front, so
 * its slots are not counted.
 */
export async function heapPerWaiter(enqueue: () => Promise<unknown>, warmup: number, count: number): Promise<number> {
  retained = new Array<unknown>(warmup + count).fill(undefined);
  for (let i = 0; i < warmup; i++) retained[i] = enqueue();
  const before = await settledHeap();
  for (let i = warmup; i < warmup + count; i++) retained[i] = enqueue();
  const after = await settledHeap();
  return (after - before) / count;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
