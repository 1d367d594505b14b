import { randomUUID } from "node:crypto";
import { getEventListeners } from "node:events";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, describe, expect, it, vi } from "vitest";
import { LimiterError } from "../../src/core/errors.js";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import { RedisStore, StoreReplyError, StoreUnavailableError, type RedisClient } from "../../src/redis/index.js";
import type { StoreFailurePolicy } from "../../src/store/shared-store.js";
import { flush, useFakeTime } from "../fake-time.js";
import { bookOne } from "./book-one.js";
import { fakeClient, scriptOf, type Call } from "./fake-client.js";
import { describeRedis, rawRedis, redisUrl } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { startUpstashBridge, upstashClient } from "./upstash-bridge.js";

const POLICIES: StoreFailurePolicy[] = ["fail-closed", "fail-open"];
const WRONGTYPE = /^WRONGTYPE Operation against a key holding the wrong kind of value/;

/** Raw clients of the three packages, closed after the file. */
const CLIENTS: Record<string, () => Promise<RedisClient>> = {
  ioredis: async () => {
    const client = new Redis(redisUrl!, { autoResendUnfulfilledCommands: false });
    afterAll(async () => void (await client.quit()));
    return client;
  },
  "node-redis": async () => {
    const client = createClient({ url: redisUrl! });
    afterAll(async () => void (await client.quit()));
    return client.connect();
  },
  upstash: async () => {
    const bridge = startUpstashBridge(redisUrl!);
    afterAll(async () => (await bridge).close());
    return upstashClient(await bridge);
  },
};

describeRedis.each(Object.keys(CLIENTS))("a key another application holds as a string (%s)", (name) => {
  const raw = rawRedis();
  const connected = CLIENTS[name]!();

  it.each(POLICIES)(
    "%s: every waiter rejects at once with StoreReplyError, nothing is left, and the queue moves on",
    async (onError) => {
      const key = `wrongtype:${randomUUID()}`;
      await raw.set(`{${key}}:b`, "another application's value");
      const onWarning = vi.fn();
      const limiter = new Limiter({
        rpm: 100,
        concurrency: 4,
        store: new RedisStore({ client: await connected, key, onError }),
        onWarning,
      });
      const signal = new AbortController().signal;
      const start = performance.now();
      const outcomes = await Promise.all(
        Array.from({ length: 5 }, () => limiter.acquire(1, { signal }).catch((e: unknown) => e)),
      );
      expect(performance.now() - start).toBeLessThan(1_000);
      for (const error of outcomes) {
        expect(error).toBeInstanceOf(StoreReplyError);
        expect(error).toBeInstanceOf(LimiterError);
        expect(error).not.toBeInstanceOf(StoreUnavailableError);
        expect(error).toMatchObject({
          code: "STORE_REPLY",
          replyCode: "WRONGTYPE",
          keys: [`{${key}}:b`, `{${key}}:c`, `{${key}}:d`],
        });
        expect((error as StoreReplyError).reply).toMatch(WRONGTYPE);
        expect((error as Error).message).toContain(`{${key}}:b`);
      }
      expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0, concurrency: { available: 4 } });
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
      expect(onWarning).not.toHaveBeenCalled();

      // Not an outage: once the key is freed, the next call books at once.
      await raw.del(`{${key}}:b`);
      const reservation = await limiter.acquire(1, { maxWaitMs: 1_000 });
      reservation.release();
      limiter.close();
    },
  );
});

describeRedis("the store on a key of the wrong type", () => {
  const raw = rawRedis();

  it("rejects each command with StoreReplyError naming the reply", async () => {
    const key = `wrongtype:${randomUUID()}`;
    await raw.set(`{${key}}:b`, "x");
    const store = new RedisStore({ client: ioredisClient(), key });
    const rpm = layout([dim("rpm", 10)]);
    for (const call of [
      () => bookOne(store, rpm, [1]),
      () => store.adjust(rpm, [1]),
      () => store.lower(rpm, 0, 1, undefined),
    ]) {
      const error: unknown = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreReplyError);
      expect((error as StoreReplyError).reply).toMatch(WRONGTYPE);
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });

  function ioredisClient(): Redis {
    const client = new Redis(redisUrl!);
    afterAll(() => client.disconnect());
    return client;
  }
});

const BOOKED_NOW = ["1", "0", "0", "", "0", "9", "0"];
const SCRIPT_ERROR =
  "ERR user_script:7: Script attempted to access nonexistent global variable 'x' script: 1f0e, on @user_script:7.";

describe("error replies to a limiter, on a fake client (no server)", () => {
  const time = useFakeTime();

  /** A limiter on a fake client whose answers `answer` decides by script name. */
  function limiterAnswering(
    answer: (script: string | undefined, call: Call) => Promise<unknown>,
    options: Partial<LimiterOptions> & { onError?: StoreFailurePolicy } = {},
  ) {
    const client = fakeClient((call) => answer(scriptOf(call), call));
    const { onError, ...rest } = options;
    const store = new RedisStore({ client, key: "k", ...(onError ? { onError } : {}) });
    const onWarning = vi.fn();
    return { limiter: new Limiter({ rpm: 10, store, onWarning, ...rest }), calls: client.calls, onWarning };
  }

  it.each(POLICIES)("%s: a script error rejects the waiters the call carried; the next call books", async (onError) => {
    let broken = true;
    const { limiter, onWarning } = limiterAnswering(
      async () => {
        if (broken) throw new Error(SCRIPT_ERROR);
        return BOOKED_NOW;
      },
      { onError },
    );
    const outcomes = Array.from({ length: 3 }, () => limiter.acquire(1).catch((e: unknown) => e));
    await flush(time.timers);
    for (const error of await Promise.all(outcomes))
      expect(error).toMatchObject({ name: "StoreReplyError", replyCode: "ERR", reply: SCRIPT_ERROR });
    expect(time.timers.countTimers()).toBe(0);
    expect(onWarning).not.toHaveBeenCalled();
    broken = false;
    const admitted = limiter.acquire(1);
    await flush(time.timers);
    (await admitted).release();
    limiter.close();
  });

  it("a lease refused for good rejects the booked waiter and gives its booking back", async () => {
    const { limiter, calls } = limiterAnswering(
      async (script) => {
        // Booked for later, due in 50 ms; then the lease script fails.
        if (script === "book") return ["0", "1", "50", "rpm", "0", "-1", "0"];
        if (script === "lease") throw new Error(SCRIPT_ERROR);
        return null;
      },
      { concurrency: 2 },
    );
    const outcome = limiter.acquire(1).catch((e: unknown) => e);
    await time.timers.tickAsync(50);
    expect(await outcome).toBeInstanceOf(StoreReplyError);
    const adjust = calls.filter((call) => scriptOf(call) === "adjust");
    expect(adjust).toHaveLength(1);
    expect(adjust[0]!.args.at(-1)).toBe("1"); // the cost, given back
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
    limiter.close();
    expect(time.timers.countTimers()).toBe(0);
  });

  it("a write refused for good warns, every time, and does not take the store for down", async () => {
    const { limiter, onWarning } = limiterAnswering(
      async (script) => {
        if (script === "book") return BOOKED_NOW;
        throw new Error("NOPERM this user has no permissions to run the 'evalsha' command");
      },
      { rpm: undefined, tpm: 1_000 },
    );
    for (let round = 1; round <= 2; round++) {
      const reservation = limiter.acquire(5);
      await flush(time.timers); // admitted at once, as no outage is waited out
      (await reservation).settle(1); // a refund: one adjust, refused
      await flush(time.timers);
      expect(onWarning).toHaveBeenCalledTimes(round);
    }
    expect(onWarning.mock.calls[1]![0]).toMatchObject({ name: "StoreReplyError", replyCode: "NOPERM" });
    limiter.close();
  });

  it.each(POLICIES)("%s: a transient reply follows the failure policy and is retried", async (onError) => {
    let busy = true;
    const { limiter, onWarning } = limiterAnswering(
      async () => {
        if (busy)
          throw new Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
        return BOOKED_NOW;
      },
      { onError },
    );
    let admitted = false;
    const reservation = limiter.acquire(1).then((r) => {
      admitted = true;
      return r;
    });
    await time.timers.tickAsync(10);
    expect(admitted).toBe(onError === "fail-open");
    expect(onWarning.mock.calls[0]![0]).toBeInstanceOf(StoreUnavailableError);
    busy = false;
    await time.timers.tickAsync(100);
    expect(admitted).toBe(true);
    (await reservation).release();
    limiter.close();
  });
});
