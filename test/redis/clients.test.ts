import { randomUUID } from "node:crypto";
import { Cluster, Redis } from "ioredis";
import { createClient, createCluster } from "redis";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Limiter } from "../../src/index.js";
import { ioredis, nodeRedis, RedisGroupStore, RedisStore, type RedisClient } from "../../src/redis/index.js";
import { scripts } from "../../src/redis/scripts/index.js";
import { bookOne } from "./book-one.js";
import { fakeClient } from "./fake-client.js";
import { describeRedis, redisUrl } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { startUpstashBridge, upstashClient } from "./upstash-bridge.js";

const rpm = layout([dim("rpm", 100)]);

/** Raw clients of the three packages, connected, with no adapter; each closed after the file. */
const RAW = {
  ioredis: async (url: string) => {
    const client = new Redis(url, { autoResendUnfulfilledCommands: false });
    await new Promise((resolve) => client.once("ready", resolve));
    return { client, close: async () => void (await client.quit()) };
  },
  "node-redis": async (url: string) => {
    const client = createClient({ url });
    await client.connect();
    return { client, close: async () => void (await client.quit()) };
  },
  upstash: async (url: string) => {
    const bridge = await startUpstashBridge(url);
    return { client: upstashClient(bridge), close: () => bridge.close() };
  },
} satisfies Record<string, (url: string) => Promise<{ client: RedisClient; close(): Promise<void> }>>;

describeRedis.each(Object.keys(RAW) as (keyof typeof RAW)[])("a raw %s client", (name) => {
  const closing: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(closing.map((close) => close()));
  });
  const store = async (): Promise<RedisStore> => {
    const { client, close } = await RAW[name](redisUrl!);
    closing.push(close);
    return new RedisStore({ client, key: `test:${randomUUID()}` });
  };

  it("is taken as it is: bookings land", async () => {
    const shared = await store();
    expect(await bookOne(shared, rpm, [1])).toMatchObject({ booked: true, marks: [1] });
    expect(await bookOne(shared, rpm, [2])).toMatchObject({ booked: true, marks: [3] });
  });

  it("serves a limiter: calls are admitted, not left waiting", async () => {
    const limiter = new Limiter({ rpm: 600, concurrency: 2, store: await store() });
    const values = await Promise.all(
      Array.from({ length: 8 }, (_, i) => limiter.run(0, async () => ({ value: i }), { maxWaitMs: 5_000 })),
    );
    expect(values).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await limiter.close();
  });
});

/** The real client object with its script commands replaced, so nothing is sent (no server, no cluster). */
function recording<T extends object>(client: T, ...names: string[]): { client: T; calls: unknown[][] } {
  const calls: unknown[][] = [];
  for (const name of names)
    Object.assign(client, { [name]: vi.fn(async (...args: unknown[]) => void calls.push([name, ...args])) });
  return { client, calls };
}

describe("raw clients are told by their shape (no server)", () => {
  const keys = ["{k}:b", "{k}:c"];

  it.each([
    ["ioredis Redis", () => new Redis({ lazyConnect: true })],
    ["ioredis Cluster", () => new Cluster([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true })],
  ])("%s: keys counted, then spread", async (_, make) => {
    const { client, calls } = recording(make(), "eval", "evalsha");
    await new RedisStore({ client, key: "k" }).release("lease-1");
    expect(calls).toEqual([["eval", scripts.release.source, 2, ...keys, "lease-1"]]);
  });

  it.each([
    ["node-redis createClient (ready)", () => Object.defineProperty(createClient(), "isReady", { value: true })],
    ["node-redis createCluster", () => createCluster({ rootNodes: [{ url: "redis://127.0.0.1:1" }] })],
  ])("%s: keys and arguments as options", async (_, make) => {
    const { client, calls } = recording(make(), "eval", "evalSha");
    await new RedisStore({ client, key: "k" }).release("lease-1");
    expect(calls).toEqual([["eval", scripts.release.source, { keys, arguments: ["lease-1"] }]]);
  });

  it("an unconnected node-redis client is waited for, not sent to", async () => {
    const { client, calls } = recording(createClient(), "eval", "evalSha");
    const error: unknown = await new RedisStore({ client, key: "k", timeoutMs: 30 })
      .release("x")
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/did not connect within 30 ms/);
    expect(calls).toEqual([]);
  });

  it("adapters still work, built with ioredis() and nodeRedis() or by hand", async () => {
    const raw = recording(new Redis({ lazyConnect: true }), "eval", "evalsha");
    await new RedisStore({ client: ioredis(raw.client), key: "k" }).release("a");
    const node = recording(createClient(), "eval", "evalSha");
    Object.defineProperty(node.client, "isReady", { value: true });
    await new RedisStore({ client: nodeRedis(node.client), key: "k" }).release("b");
    const own = fakeClient(async () => null);
    await new RedisStore({ client: own, key: "k" }).release("c");
    expect([raw.calls.length, node.calls.length, own.calls.length]).toEqual([1, 1, 1]);
  });

  it.each([
    ["nothing", undefined, /got undefined/],
    ["a string", "redis://localhost", /got redis:\/\/localhost/],
    ["an empty object", {}, /got an empty object/],
    ["a promise of a client", { then: (): null => null }, /got an object with keys then/],
    ["a Map", new Map(), /got a Map/],
    [
      "an adapter with a non-function isReady",
      { evalsha: (): null => null, eval: (): null => null, isReady: true },
      /RedisScriptClient/,
    ],
    ["a client with only evalsha", { evalsha: (): null => null, isCluster: false }, /ioredis Redis or Cluster/],
  ])("refuses %s at construction, with a TypeError", (_, client, message) => {
    expect(() => new RedisStore({ client: client as never, key: "k" })).toThrow(TypeError);
    expect(() => new RedisStore({ client: client as never, key: "k" })).toThrow(message);
  });
});

describe("the store's key", () => {
  const client = fakeClient(async () => null);

  /** What Redis Cluster hashes of a key: the tag between the first { and the first } after it, unless empty. */
  function hashed(key: string): string {
    const open = key.indexOf("{");
    const close = open < 0 ? -1 : key.indexOf("}", open + 1);
    return close > open + 1 ? key.slice(open + 1, close) : key;
  }

  it.each(["}", "}a", "}{a}"])(
    "%j, whose Redis keys would have an empty hash tag, is refused with a TypeError",
    (key) => {
      expect(() => new RedisStore({ client, key })).toThrow(TypeError);
      expect(() => new RedisStore({ client, key })).toThrow(/must not start with "}".*CROSSSLOT/);
      expect(() => new RedisGroupStore({ client, key })).toThrow(TypeError);
    },
  );

  it.each(["a}b", "{a", "a{b}c", "{}", "a}", "k"])(
    "%j: every Redis key of a store and a member hashes alike",
    async (key) => {
      const calls = client.calls.length;
      const shape = layout([dim("rpm", 10)]);
      for (const store of [
        new RedisStore({ client, key }),
        new RedisGroupStore({ client, key }).member("m}{", () => false),
      ]) {
        await store.release("lease");
        await store.book(shape, []).catch(() => undefined);
      }
      const keys = client.calls.slice(calls).flatMap((call) => call.keys);
      expect(keys).toHaveLength(10);
      expect(new Set(keys.map(hashed)).size).toBe(1);
    },
  );
});
