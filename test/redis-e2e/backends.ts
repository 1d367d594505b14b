import { randomUUID } from "node:crypto";
import { afterAll, afterEach } from "vitest";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import { Redis } from "ioredis";
import { RedisStore } from "../../src/redis/index.js";
import { scripts } from "../../src/redis/scripts/index.js";
import { ADAPTERS, redisUrl, type AdapterName, type Connection } from "../redis/helpers.js";

/** Where a conformance suite's limiters keep their buckets. */
export interface Backend {
  readonly name: string;
  /** A limiter on a quota of its own (a fresh Redis key), closed after the test. */
  limiter(options: LimiterOptions): Promise<Limiter>;
}

/** Limiters made in the current test, closed after it so no waiter or timer outlives it. */
function closedAfterEach(): (limiter: Limiter) => Limiter {
  const made: Limiter[] = [];
  afterEach(() => {
    for (const limiter of made.splice(0)) limiter.close();
  });
  return (limiter) => {
    made.push(limiter);
    return limiter;
  };
}

/**
 * The default: buckets in the limiter's own memory. The suite holds both stores
 * to the timings of calls that arrive at once (`arrivalDelayMs: 0`): an
 * arrival delay holds refill back just after a full bucket, in both.
 */
export function memoryBackend(): Backend {
  const track = closedAfterEach();
  return { name: "memory store", limiter: async (options) => track(new Limiter({ arrivalDelayMs: 0, ...options })) };
}

/** A Redis backend that can also put several limiters on one key. */
export interface RedisBackend extends Backend {
  /** A limiter on `key`: limiters on one key share one quota. */
  limiterOn(key: string, options: LimiterOptions): Promise<Limiter>;
}

/**
 * Loads every script into the server's cache, so that scenarios test the
 * limiter rather than the recovery from an empty cache (script-cache.test.ts).
 */
async function loadScripts(url: string): Promise<void> {
  const raw = new Redis(url);
  try {
    await Promise.all(Object.values(scripts).map((s) => raw.script("LOAD", s.source)));
  } finally {
    raw.disconnect();
  }
}

/**
 * Runs a batch of admissions on a throwaway key, so that no scenario's first
 * round trip runs cold code: the models forgive a late timestamp only for the
 * first admission, and one booking call admits a whole burst.
 */
async function warmUp(connection: Connection): Promise<void> {
  const limiter = new Limiter({
    rpm: 1_000,
    tpm: 1_000_000,
    concurrency: 10,
    store: new RedisStore({ client: connection.client, key: `e2e:warm-up:${randomUUID()}` }),
  });
  for (let round = 0; round < 3; round++) {
    const admitted = await Promise.all(Array.from({ length: 5 }, () => limiter.acquire(10)));
    for (const r of admitted) r.release();
  }
  limiter.close();
}

/** Buckets in the test Redis, through `adapter`; one connection for the file. */
export function redisBackend(adapter: AdapterName): RedisBackend {
  const track = closedAfterEach();
  let connection: Promise<Connection> | undefined;
  afterAll(async () => {
    await (await connection)?.close();
  });
  const limiterOn = async (key: string, options: LimiterOptions): Promise<Limiter> => {
    connection ??= loadScripts(redisUrl!)
      .then(() => ADAPTERS[adapter](redisUrl!))
      .then(async (connected) => {
        await warmUp(connected);
        return connected;
      });
    const store = new RedisStore({ client: (await connection).client, key });
    return track(new Limiter({ arrivalDelayMs: 0, ...options, store }));
  };
  return {
    name: `Redis store (${adapter})`,
    limiter: (options) => limiterOn(`e2e:${randomUUID()}`, options),
    limiterOn,
  };
}
