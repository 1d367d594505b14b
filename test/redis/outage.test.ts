import { describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { ioredis, nodeRedis, RedisStore, StoreUnavailableError } from "../../src/redis/index.js";
import { ADAPTERS, ADAPTER_NAMES, sleep, TCP_ADAPTER_NAMES, type Connection, type TcpAdapterName } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { redisServerAvailable, startRedisServer } from "../../examples/shared/redis-server.js";
import { bookOne } from "./book-one.js";

const rpm = layout([dim("rpm", 100)]);

/** Books until Redis answers again (the client reconnects on its own schedule). */
async function bookWhenBack(store: RedisStore, deadlineMs: number): Promise<{ booking: unknown; attempts: number }> {
  const deadline = Date.now() + deadlineMs;
  for (let attempts = 1; ; attempts++) {
    try {
      return { booking: await bookOne(store, rpm, [1]), attempts };
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

// A server of its own, so stopping it disturbs no other test.
describe.skipIf(!redisServerAvailable()).each(ADAPTER_NAMES)("outage (%s)", (adapter) => {
  it("rejects with StoreUnavailableError while the server is down, and recovers when it is back", async () => {
    const server = await startRedisServer();
    const connection = await ADAPTERS[adapter](server.url);
    let restarted: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    try {
      const store = new RedisStore({ client: connection.client, key: "outage", timeoutMs: 200 });
      expect(await bookOne(store, rpm, [1])).toMatchObject({ booked: true, waitMs: 0 });
      await server.stop();
      const error: unknown = await bookOne(store, rpm, [1]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ code: "STORE_UNAVAILABLE" });
      expect((error as Error).cause).toBeDefined();
      restarted = await startRedisServer(server.port);
      // The restarted server is empty: the state starts afresh. An attempt sent just as the
      // connection dropped may still run once the server is back (ioredis sends again what
      // was in flight), so the total booked is at most one per attempt.
      const { booking, attempts } = await bookWhenBack(store, 10_000);
      expect(booking).toMatchObject({ booked: true, waitMs: 0 });
      const [booked] = (booking as { marks: number[] }).marks;
      expect(booked).toBeGreaterThanOrEqual(1);
      expect(booked).toBeLessThanOrEqual(attempts);
    } finally {
      await connection.close();
      await restarted?.stop();
    }
  });
});

describe.skipIf(!redisServerAvailable()).each(TCP_ADAPTER_NAMES)("a client that is reconnecting (%s)", (adapter) => {
  it("is sent nothing: the call fails after the timeout, and nothing of it lands when the server is back", async () => {
    const server = await startRedisServer();
    const connection = await ADAPTERS[adapter](server.url);
    let restarted: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    const isReady = connection.client.isReady!;
    try {
      const store = new RedisStore({ client: connection.client, key: "offline", timeoutMs: 300 });
      await bookOne(store, rpm, [1]);
      await server.stop();
      while (isReady()) await sleep(10);
      const error: unknown = await bookOne(store, rpm, [1]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/did not connect within 300 ms/);
      restarted = await startRedisServer(server.port);
      while (!isReady()) await sleep(20);
      // The restarted server is empty: a refused booking queued by the client would have landed first.
      expect((await bookOne(store, rpm, [1])).marks).toEqual([1]);
    } finally {
      await connection.close();
      await restarted?.stop();
    }
  });
});

/** Clients that fail at once while disconnected, instead of queueing until the timeout. */
const FAIL_FAST = {
  ioredis: async (url: string): Promise<Connection> => {
    const raw = new Redis(url, { enableOfflineQueue: false });
    raw.on("error", () => {});
    await new Promise((resolve) => raw.once("ready", resolve));
    return { client: ioredis(raw), close: async () => void raw.disconnect() };
  },
  "node-redis": async (url: string): Promise<Connection> => {
    const raw = createClient({ url, disableOfflineQueue: true });
    raw.on("error", () => {});
    await raw.connect();
    return { client: nodeRedis(raw), close: async () => void raw.destroy() };
  },
} satisfies Record<TcpAdapterName, (url: string) => Promise<Connection>>;

describe.skipIf(!redisServerAvailable()).each(TCP_ADAPTER_NAMES)("outage without an offline queue (%s)", (adapter) => {
  it("rejects with StoreUnavailableError once the timeout passes with the client still down", async () => {
    const server = await startRedisServer();
    const connection = await FAIL_FAST[adapter](server.url);
    try {
      const store = new RedisStore({ client: connection.client, key: "fast", timeoutMs: 300 });
      await bookOne(store, rpm, [1]);
      await server.stop();
      await sleep(100);
      const error: unknown = await bookOne(store, rpm, [1]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/did not connect within 300 ms/);
    } finally {
      await connection.close();
    }
  });
});
