import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, describe, inject } from "vitest";
import {
  ioredis,
  nodeRedis,
  RedisStore,
  upstash,
  type RedisScriptClient,
  type RedisStoreOptions,
} from "../../src/redis/index.js";
import type { SharedLayout, SharedStore } from "../../src/store/shared-store.js";
import { startUpstashBridge, upstashClient } from "./upstash-bridge.js";

const provided = inject("redisUrl") as string | undefined;

/** The Redis under test, or `undefined` when the tests skip. */
export const redisUrl: string | undefined = provided || undefined;

if (provided === undefined) {
  console.warn(
    '[llm-limiter] Redis store tests SKIPPED: add globalSetup: ["test/redis/redis-server.setup.ts"] to the vitest config.',
  );
}

/** `describe`, skipped (visibly) when no Redis is available. */
export const describeRedis: ReturnType<typeof describe.skipIf> = describe.skipIf(redisUrl === undefined);

/** A connection through one of the adapters, closed after the file's tests. */
export interface Connection {
  readonly client: RedisScriptClient;
  close(): Promise<void>;
}

/** The three adapters, connected to `url`: run store tests once per adapter. */
export const ADAPTERS = {
  ioredis: async (url: string): Promise<Connection> => {
    // One retry: while Redis is down, commands fail soon instead of after 20 reconnects.
    const raw = new Redis(url, { maxRetriesPerRequest: 1 });
    raw.on("error", () => {});
    // The store sends nothing until the client is ready.
    await new Promise((resolve) => raw.once("ready", resolve));
    return { client: ioredis(raw), close: async () => void raw.disconnect() };
  },
  "node-redis": async (url: string): Promise<Connection> => {
    const raw = createClient({ url });
    raw.on("error", () => {});
    await raw.connect();
    return { client: nodeRedis(raw), close: async () => void raw.destroy() };
  },
  // @upstash/redis as users build it, over HTTP to a bridge that speaks Upstash's REST protocol in front of `url`.
  upstash: async (url: string): Promise<Connection> => {
    const bridge = await startUpstashBridge(url);
    return { client: upstash(upstashClient(bridge)), close: () => bridge.close() };
  },
} satisfies Record<string, (url: string) => Promise<Connection>>;

export type AdapterName = keyof typeof ADAPTERS;
export const ADAPTER_NAMES = Object.keys(ADAPTERS) as AdapterName[];
/** The adapters over a connection of their own (not HTTP): those with a ready state and an offline queue. */
export type TcpAdapterName = Exclude<AdapterName, "upstash">;
export const TCP_ADAPTER_NAMES = ADAPTER_NAMES.filter((name): name is TcpAdapterName => name !== "upstash");

/** A plain ioredis connection for inspecting and poking at the server directly; closed after the file. */
export function rawRedis(): Redis {
  const raw = new Redis(redisUrl!, { lazyConnect: true });
  raw.on("error", () => {});
  afterAll(() => raw.disconnect());
  return raw;
}

/**
 * Makes stores on fresh keys for one adapter; every connection opened is
 * closed after the file's tests.
 */
export function storeFactory(adapter: AdapterName): (options?: Partial<RedisStoreOptions>) => Promise<RedisStore> {
  const connections: Connection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.close()));
  });
  return async (options = {}) => {
    const connection = await ADAPTERS[adapter](redisUrl!);
    connections.push(connection);
    return new RedisStore({ client: connection.client, key: `test:${randomUUID()}`, ...options });
  };
}

/** A client that counts the calls it sends: each is one round trip. */
export function counting(client: RedisScriptClient): RedisScriptClient & { calls: number } {
  const counted = {
    calls: 0,
    evalsha: (...args: Parameters<RedisScriptClient["evalsha"]>) => {
      counted.calls++;
      return client.evalsha(...args);
    },
    eval: (...args: Parameters<RedisScriptClient["eval"]>) => {
      counted.calls++;
      return client.eval(...args);
    },
  };
  return counted;
}

/** The levels now, read by a booking call that carries no request. */
export async function levels(store: SharedStore, of: SharedLayout): Promise<readonly number[]> {
  return (await store.book(of, [])).levels;
}

export { delay as sleep } from "../../src/testing/delay.js";

/** Milliseconds `fn` took (an upper bound for the refill that happened meanwhile). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}
