/**
 * One adapter per library, each configured as its docs recommend for an
 * "N per minute" quota, TPM through weights where the library has them, and
 * each told the same quota. A client is one limiter instance (per process);
 * `send` takes one job to completion and resolves whether it was served.
 * The peers wrap a call whose 429s are retried inside it, as an SDK with
 * `maxRetries` does; llm-limiter owns the retries (SDK `maxRetries: 0`).
 */
import { LLMThrottle } from "@aid-on/llm-throttle";
import Bottleneck from "bottleneck";
import { RateLimiter } from "limiter";
import PQueue from "p-queue";
import { RateLimiterMemory, RateLimiterQueue } from "rate-limiter-flexible";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import type { CallRequest, CallResult, RateLimitedBody, SimulatedProvider } from "../../src/testing/index.js";
import { callWithRetries, RETRIES, sleep } from "./retry.js";
import { isHeaderless, type Job, type Quota, type Workload } from "./workloads.js";

/** The provider as a client calls it: whatever the workload's dialect, its 429 bodies included. */
export type Provider = SimulatedProvider<RateLimitedBody>;

export type Send = (job: Job, provider: Provider) => Promise<boolean>;

export interface Contender {
  /** npm package name, or "no limiter". */
  readonly library: string;
  /** How it is configured and called, for the results file. */
  readonly setup: string;
  /** A new client for one of the workload's processes, told what the workload says. */
  client(workload: Workload): Send;
}

const MINUTE_MS = 60_000;

function request(job: Job): CallRequest {
  return { prompt: job.prompt, maxTokens: job.maxTokens, actual: job.actual };
}

/** What the provider charges a call at admission: prompt + max_tokens. */
function estimate(job: Job): number {
  return job.prompt + job.maxTokens;
}

/** A library that wraps the call: `gate(cost, fn)` runs `fn` once it admits `cost` tokens. */
type Gate = (cost: number, fn: () => Promise<CallResult<RateLimitedBody>>) => Promise<CallResult<RateLimitedBody>>;

function gated(gate: Gate): Send {
  return async (job, provider) =>
    (await gate(estimate(job), () => callWithRetries(provider, request(job)))).status === 200;
}

/**
 * Anything that waits until it can take `count` tokens: `limiter`'s `RateLimiter`, rate-limiter-flexible's
 * `RateLimiterQueue`.
 */
interface TokenRemover {
  removeTokens(count: number): Promise<unknown>;
}

/** Two limiters, one of tokens and one of requests: take the call's tokens, then one request, then call. */
function tokensThenRequest(tokens: TokenRemover, requests: TokenRemover): Send {
  return gated(async (cost, fn) => {
    await tokens.removeTokens(cost);
    await requests.removeTokens(1);
    return fn();
  });
}

/** llm-limiter's options on a workload: default options, and only what the workload configures. */
export function limiterOptions(workload: Workload): LimiterOptions {
  switch (workload.limiterSetup ?? "quota and provider") {
    case "quota and provider": {
      const { dialect } = workload.provider;
      if (isHeaderless(dialect)) throw new Error(`workload ${workload.id}: ${dialect} sends no headers to name it by`);
      return { ...workload.told, provider: dialect };
    }
    case "quota":
      return { ...workload.told };
    case "nothing":
      return {};
  }
}

/** llm-limiter as the README shows it: reserve prompt + max_tokens, sync headers, settle usage, retry 429s. */
export function sendThrough(limiter: Limiter): Send {
  return async (job, provider) => {
    try {
      await limiter.run(
        estimate(job),
        async (reservation) => {
          const res = await provider.call(request(job));
          if (res.status === 429)
            throw Object.assign(new Error("429"), { status: 429, headers: res.headers, body: res.body });
          reservation.sync(res.headers);
          return { value: res, used: job.prompt + res.usage.completionTokens };
        },
        { retry: { attempts: RETRIES } },
      );
      return true;
    } catch {
      return false;
    }
  };
}

/**
 * @aid-on/llm-throttle has no waiting API: callers wait in FIFO order, one polling `consume` and sleeping
 * `availableIn`.
 */
function throttled(quota: Quota): Send {
  const throttle = new LLMThrottle({ ...quota, clock: () => performance.now() });
  let turn = Promise.resolve();
  let ids = 0;
  const admit = (id: string, cost: number): Promise<void> => {
    turn = turn.then(async () => {
      while (!throttle.consume(id, cost)) await sleep(Math.max(1, throttle.canProcess(cost).availableIn ?? 1));
    });
    return turn;
  };
  return async (job, provider) => {
    const id = String(++ids);
    await admit(id, estimate(job));
    const res = await callWithRetries(provider, request(job));
    try {
      // The README's pattern: adjust to the usage, or to 0 when the call failed.
      throttle.adjustConsumption(id, res.status === 200 ? job.prompt + res.usage.completionTokens : 0);
    } catch {
      // It keeps 60 s of history: a call retried for longer can no longer be adjusted.
    }
    return res.status === 200;
  };
}

export const contenders: readonly Contender[] = [
  {
    library: "no limiter",
    setup: "call at once",
    client: () => gated((_, fn) => fn()),
  },
  {
    library: "bottleneck",
    setup:
      "two limiters, `reservoir` = RPM / TPM refreshed every 60 s; `schedule({ weight: prompt + max_tokens })` on the TPM one, then `schedule` on the RPM one",
    client({ told: quota }) {
      const perMinute = (n: number) =>
        new Bottleneck({ reservoir: n, reservoirRefreshAmount: n, reservoirRefreshInterval: MINUTE_MS });
      const tokens = perMinute(quota.tpm);
      const requests = perMinute(quota.rpm);
      return gated((cost, fn) => tokens.schedule({ weight: cost }, () => requests.schedule(fn)));
    },
  },
  {
    library: "p-queue",
    setup: "`intervalCap` = RPM per 60 s, `strict: true` (sliding window); no weights, so no TPM",
    client({ told: quota }) {
      const queue = new PQueue({ intervalCap: quota.rpm, interval: MINUTE_MS, strict: true });
      return gated((_, fn) => queue.add(fn));
    },
  },
  {
    library: "limiter",
    setup: "two `RateLimiter`s, RPM / TPM per minute; `removeTokens(prompt + max_tokens)`, then `removeTokens(1)`",
    client({ told: quota }) {
      const tokens = new RateLimiter({ tokensPerInterval: quota.tpm, interval: "minute" });
      const requests = new RateLimiter({ tokensPerInterval: quota.rpm, interval: "minute" });
      return tokensThenRequest(tokens, requests);
    },
  },
  {
    library: "rate-limiter-flexible",
    setup:
      "two `RateLimiterQueue`s over `RateLimiterMemory({ points: RPM / TPM, duration: 60 })`; `removeTokens(prompt + max_tokens)`, then `removeTokens(1)`",
    client({ told: quota }) {
      const queue = (points: number) =>
        new RateLimiterQueue(new RateLimiterMemory({ points, duration: MINUTE_MS / 1_000 }));
      const tokens = queue(quota.tpm);
      const requests = queue(quota.rpm);
      return tokensThenRequest(tokens, requests);
    },
  },
  {
    library: "@aid-on/llm-throttle",
    setup:
      "`LLMThrottle({ rpm, tpm })`; `consume(id, prompt + max_tokens)` (FIFO, sleeping `availableIn`), then `adjustConsumption(id, used)` (0 on a 429)",
    client: ({ told }) => throttled(told),
  },
  {
    library: "llm-limiter",
    setup:
      `\`new Limiter({ rpm, tpm, provider })\` on default options otherwise (where a workload says so, no \`provider\`, or \`new Limiter()\`); ` +
      `\`run(prompt + max_tokens, fn, { retry: { attempts: ${RETRIES} } })\`, fn syncs headers and reports \`used\``,
    client: (workload) => sendThrough(new Limiter(limiterOptions(workload))),
  },
];

/** A plain semaphore of `size` calls in flight; a call holds its slot through its retries. */
function semaphore(size: number): Gate {
  let free = size;
  const waiting: (() => void)[] = [];
  return async (_, fn) => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
}

/** One point of a self-hosted server's sweep: a fixed concurrency of `size`, told nothing else. */
export function fixedConcurrency(size: number): Contender {
  return {
    library: `fixed concurrency ${size}`,
    setup: `a plain semaphore of ${size} calls in flight; 429s retried inside it`,
    client: () => gated(semaphore(size)),
  };
}
