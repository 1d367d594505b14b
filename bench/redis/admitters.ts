import type { Cluster, Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { Limiter } from "../../src/index.js";
import { ioredis, RedisStore } from "../../src/redis/index.js";
import type { Library, RequestBudget } from "./jobs.js";

/** One library's way to get one admission, waiting for it if the budget binds. */
export interface Admitter {
  admit(): Promise<void>;
  close(): void;
}

/** A budget so large it never binds. */
export const UNBOUNDED: RequestBudget = { limit: 1e12, windowMs: 60_000 };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * llm-limiter on RPM + TPM (on RPM alone with `tokens` false, one budget as rate-limiter-flexible has); `settle`
 * reports usage below the estimate, as `run` does after a call; `atOnce`: `arrivalDelayMs: 0`, calls taken to
 * reach the provider when admitted (default options otherwise).
 */
function llmLimiter(
  redis: Redis | Cluster,
  key: string,
  budget: RequestBudget,
  { settle = false, tokens = true, atOnce = false } = {},
): Admitter {
  const limiter = new Limiter({
    limits: {
      requests: { unit: "requests", ...budget },
      ...(tokens && { tokens: { unit: "tokens", limit: 1e15, windowMs: 60_000 } }),
    },
    store: new RedisStore({ client: ioredis(redis), key }),
    ...(atOnce && { arrivalDelayMs: 0 }),
  });
  return {
    admit: settle
      ? () => limiter.run(200, async () => ({ value: undefined, used: 120 }))
      : () => limiter.acquire(200).then((r) => r.release()),
    close: () => limiter.close(),
  };
}

/**
 * rate-limiter-flexible's Redis limiter (a fixed window of `limit` points per
 * `windowMs`, whole seconds), waiting the way its docs advise: consume, and on
 * a rejection sleep `msBeforeNext` and try again.
 */
function rateLimiterFlexible(redis: Redis | Cluster, key: string, budget: RequestBudget): Admitter {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: key,
    points: budget.limit,
    duration: budget.windowMs / 1_000,
  });
  const admit = async (): Promise<void> => {
    for (;;) {
      try {
        await limiter.consume("quota");
        return;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        await sleep(rejection.msBeforeNext);
      }
    }
  };
  return { admit, close: () => {} };
}

export function admitter(library: Library, redis: Redis | Cluster, key: string, budget: RequestBudget): Admitter {
  if (library === "rate-limiter-flexible") return rateLimiterFlexible(redis, key, budget);
  return llmLimiter(redis, key, budget, {
    settle: library === "llm-limiter-settle",
    tokens: library !== "llm-limiter-rpm",
    atOnce: library === "llm-limiter-at-once",
  });
}
