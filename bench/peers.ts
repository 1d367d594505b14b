/**
 * One adapter per library: the same call through each one's recommended
 * wait-for-permission API, on a limit that never binds (throughput), and a
 * limit with nothing left (queued waiters, for memory).
 */
import { readFileSync } from "node:fs";
import { LLMThrottle } from "@aid-on/llm-throttle";
import Bottleneck from "bottleneck";
import { RateLimiter } from "limiter";
import PQueue from "p-queue";
import { RateLimiterMemory, RateLimiterQueue } from "rate-limiter-flexible";
import { Limiter } from "../src/index.js";

/** A limiter opened for one timed run. */
export interface Open {
  /** One admitted call of the shared no-op work. */
  call(): Promise<unknown>;
  /** Stops the library's timers so the process can exit. */
  close(): void;
}

export interface Contender {
  /** npm package name (also where its version is read from). */
  readonly library: string;
  /** What each call goes through, for the table. */
  readonly api: string;
  open(): Open;
}

export interface QueuedWait {
  readonly library: string;
  readonly api: string;
  /** Builds a limiter with no capacity left; resolves to a function that queues one more waiter. */
  setup(): Promise<() => Promise<unknown>>;
}

/** Never binds: a trillion per minute. */
const HUGE = 1e12;
/** The estimate admitted with and the usage reported back (a 2x over-estimate). */
const ESTIMATE = 200;
const USED = 100;

/** The same async no-op for everyone, shaped as llm-limiter's `run` wants it. */
const work = async (): Promise<{ value: number; used: number }> => ({ value: 42, used: USED });

export const contenders: readonly Contender[] = [
  {
    library: "llm-limiter",
    api: "`run(200, fn)`: RPM + TPM, settle `used`",
    open() {
      const limiter = new Limiter({ rpm: HUGE, tpm: HUGE });
      return { call: () => limiter.run(ESTIMATE, work), close: () => limiter.close() };
    },
  },
  {
    library: "p-queue",
    api: "`add(fn)`, `intervalCap` per minute",
    open() {
      const queue = new PQueue({ intervalCap: HUGE, interval: 60_000 });
      return { call: () => queue.add(work), close: () => queue.clear() };
    },
  },
  {
    library: "limiter",
    api: "`RateLimiter.removeTokens(1)`, then fn",
    open() {
      const limiter = new RateLimiter({ tokensPerInterval: HUGE, interval: "minute" });
      // then(): the cheapest way to run fn after the wait (no async frame).
      return { call: () => limiter.removeTokens(1).then(work), close: () => {} };
    },
  },
  {
    library: "rate-limiter-flexible",
    api: "`RateLimiterQueue.removeTokens(1)` on `RateLimiterMemory`, then fn",
    open() {
      const queue = new RateLimiterQueue(new RateLimiterMemory({ points: HUGE, duration: 60 }));
      // then(): the cheapest way to run fn after the wait (no async frame).
      return { call: () => queue.removeTokens(1).then(work), close: () => {} };
    },
  },
  {
    library: "bottleneck",
    api: "`schedule(fn)`, reservoir refreshed per minute",
    open() {
      const limiter = new Bottleneck({
        reservoir: HUGE,
        reservoirRefreshAmount: HUGE,
        reservoirRefreshInterval: 60_000,
      });
      return { call: () => limiter.schedule(work), close: () => void limiter.disconnect() };
    },
  },
  {
    library: "@aid-on/llm-throttle",
    // It has no queue: its README checks `consume` and adjusts afterwards; we sleep and retry on a refusal.
    api: "`consume(id, 200)` (sleep `availableIn` and retry if refused), fn, `adjustConsumption(id, 100)`",
    open() {
      // Silenced: it warns at construction that limits this high "may impact performance".
      const quiet = () => {};
      const throttle = new LLMThrottle({
        rpm: HUGE,
        tpm: HUGE,
        logger: { warn: quiet, error: quiet, info: quiet, debug: quiet },
      });
      let nextId = 0;
      return {
        call: async () => {
          const id = String(nextId++);
          while (!throttle.consume(id, ESTIMATE)) {
            await new Promise((resolve) => setTimeout(resolve, throttle.canProcess(ESTIMATE).availableIn));
          }
          const outcome = await work();
          throttle.adjustConsumption(id, outcome.used);
          return outcome.value;
        },
        close: () => {},
      };
    },
  },
];

export const queuedWaits: readonly QueuedWait[] = [
  {
    library: "llm-limiter",
    api: "`acquire(200)`",
    async setup() {
      const limiter = new Limiter({ rpm: 1, tpm: 1_000, initial: "empty" });
      return () => limiter.acquire(ESTIMATE);
    },
  },
  {
    library: "llm-limiter",
    api: "`run(200, fn)`",
    async setup() {
      const limiter = new Limiter({ rpm: 1, tpm: 1_000, initial: "empty" });
      return () => limiter.run(ESTIMATE, work);
    },
  },
  {
    library: "p-queue",
    api: "`add(fn)`",
    async setup() {
      const queue = new PQueue({ intervalCap: 1, interval: 3_600_000 });
      void queue.add(work);
      return () => queue.add(work);
    },
  },
  {
    library: "limiter",
    api: "`removeTokens(1)`",
    async setup() {
      const limiter = new RateLimiter({ tokensPerInterval: 1, interval: "hour" });
      await limiter.removeTokens(1);
      return () => limiter.removeTokens(1);
    },
  },
  {
    library: "rate-limiter-flexible",
    api: "`RateLimiterQueue.removeTokens(1)`",
    async setup() {
      const memory = new RateLimiterMemory({ points: 1, duration: 3_600 });
      const queue = new RateLimiterQueue(memory);
      await queue.removeTokens(1);
      return () => queue.removeTokens(1);
    },
  },
  {
    library: "bottleneck",
    api: "`schedule(fn)`",
    async setup() {
      const limiter = new Bottleneck({ reservoir: 0 });
      return () => limiter.schedule(work);
    },
  },
];

/** The installed version of `library`, from its package.json (some do not export that file). */
export function versionOf(library: string): string {
  if (library === "llm-limiter") return `${readVersion(new URL("../package.json", import.meta.url))} (src)`;
  return readVersion(new URL(`../node_modules/${library}/package.json`, import.meta.url));
}

function readVersion(url: URL): string {
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
