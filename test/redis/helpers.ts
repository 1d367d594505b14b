import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { afterAll, describe, inject } from "vitest";
import {
  ioredis,
  nodeRedis,
  RedisStore,
  type RedisScriptClient,
  type RedisStoreOptions,
} from "../../src/redis/index.js";
import type { SharedLayout, SharedStore } from "../../src/store/shared-store.js";

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

/** Both adapters, connected to `url`: run store tests once per adapter. */
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
} satisfies Record<string, (url: string) => Promise<Connection>>;

export type AdapterName = keyof typeof ADAPTERS;
export const ADAPTER_NAMES = Object.keys(ADAPTERS) as AdapterName[];

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
