import { afterEach, describe, expect, it, vi } from "vitest";
import { LimiterError } from "../../src/core/errors.js";
import { ioredis, nodeRedis, RedisStore, StoreReplyError, StoreUnavailableError } from "../../src/redis/index.js";
import { fakeClient, never } from "./fake-client.js";
import { dim, layout } from "./layouts.js";
import { bookOne } from "./book-one.js";

const rpm = layout([dim("rpm", 10)]);
const TIMEOUT = 1234;

function storeAnswering(answer: Parameters<typeof fakeClient>[0]): {
  store: RedisStore;
  calls: ReturnType<typeof fakeClient>["calls"];
} {
  const client = fakeClient(answer);
  return { store: new RedisStore({ client, key: "k", timeoutMs: TIMEOUT }), calls: client.calls };
}

describe("errors and timeouts (no server)", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("rejects with StoreUnavailableError after timeoutMs, not before, and leaves no timer", async () => {
    vi.useFakeTimers();
    const { store } = storeAnswering(never);
    const outcome = store.release("lease").then(
      () => "resolved",
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(TIMEOUT - 1);
    expect(vi.getTimerCount()).toBe(1);
    // The timer, then one turn of the loop for a reply already waiting in the socket.
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersToNextTimerAsync();
    const error = await outcome;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toBeInstanceOf(LimiterError);
    expect(error).toMatchObject({ code: "STORE_UNAVAILABLE", name: "StoreUnavailableError" });
    expect((error as Error).cause).toMatchObject({ name: "TimeoutError" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("takes a reply that is read in the loop turn the late timer fired in (the loop was busy) as an answer", async () => {
    vi.useFakeTimers();
    // The reply's timer is set after the timeout's and falls due with it: the timeout's fires first, as a timer
    // that fired late runs before the loop reads the socket where the reply waits.
    const { store } = storeAnswering(() => new Promise((resolve) => setTimeout(() => resolve(null), TIMEOUT)));
    const outcome = store.release("lease").then(
      () => "resolved",
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(TIMEOUT);
    await vi.advanceTimersToNextTimerAsync();
    expect(await outcome).toBe("resolved");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("clears the timer as soon as the call settles, either way", async () => {
    vi.useFakeTimers();
    await storeAnswering(async () => null).store.release("lease");
    expect(vi.getTimerCount()).toBe(0);
    await expect(
      storeAnswering(() => Promise.reject(new Error("read ECONNRESET"))).store.release("x"),
    ).rejects.toThrow();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("unrefs its timers: a hung Redis never keeps the process alive", async () => {
    const spy = vi.spyOn(globalThis, "setTimeout");
    const store = new RedisStore({ client: fakeClient(never), key: "k", timeoutMs: 7 });
    await expect(store.release("lease")).rejects.toBeInstanceOf(StoreUnavailableError);
    const ours = spy.mock.results.filter((_, i) => spy.mock.calls[i]![1] === 7);
    expect(ours).toHaveLength(1);
    expect((ours[0]!.value as NodeJS.Timeout).hasRef()).toBe(false);
  });

  it.each([
    ["a connection error", new Error("connect ECONNREFUSED 127.0.0.1:1")],
    ["a closed client", new Error("The client is closed")],
    ["a server still loading", new Error("LOADING Redis is loading the dataset in memory")],
    ["a read-only replica after failover", new Error("READONLY You can't write against a read only replica.")],
    ["a non-Error rejection", "boom"],
  ])("wraps %s in StoreUnavailableError, with the cause", async (_, cause) => {
    const { store } = storeAnswering(() => Promise.reject(cause));
    const error: unknown = await bookOne(store, rpm, [1]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toBe(cause);
  });

  it("wraps a client that throws synchronously", async () => {
    const { store } = storeAnswering(() => {
      throw new Error("Connection is closed.");
    });
    await expect(bookOne(store, rpm, [1])).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it.each(["BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "OOM", "MISCONF", "NOREPLICAS"])(
    "takes a %s reply for the store being unavailable",
    async (code) => {
      const cause = new Error(`${code} not now`);
      const { store } = storeAnswering(() => Promise.reject(cause));
      const error: unknown = await bookOne(store, rpm, [1]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(store.isFinal(error)).toBe(false);
    },
  );

  it.each([
    ["WRONGTYPE", "WRONGTYPE Operation against a key holding the wrong kind of value"],
    ["ERR", "ERR value is not an integer or out of range"],
    ["ERR", "ERR user_script:1: Script attempted to access nonexistent global variable 'x'"],
    ["NOPERM", "NOPERM this user has no permissions to run the 'evalsha' command"],
    ["CROSSSLOT", "CROSSSLOT Keys in request don't hash to the same slot"],
  ])("rejects with StoreReplyError on a %s reply: retrying cannot cure it", async (replyCode, reply) => {
    const cause = new Error(reply);
    const { store } = storeAnswering(() => Promise.reject(cause));
    const error: unknown = await bookOne(store, rpm, [1]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreReplyError);
    expect(error).toBeInstanceOf(LimiterError);
    expect(error).toMatchObject({
      code: "STORE_REPLY",
      name: "StoreReplyError",
      reply,
      replyCode,
      keys: ["{k}:b", "{k}:c", "{k}:d"],
      cause,
    });
    expect(store.isFinal(error)).toBe(true);
  });

  it("sends EVAL until the script ran, then EVALSHA; answers NOSCRIPT with EVAL of the same script, keys and args", async () => {
    let flushed = false;
    const { store, calls } = storeAnswering(async (call) => {
      if (call.command === "evalsha" && flushed) throw new Error("NOSCRIPT No matching script. Please use EVAL.");
      return ["1", "0", "0", "", "0", "9", "0"];
    });
    await bookOne(store, rpm, [1]);
    await bookOne(store, rpm, [1]);
    flushed = true;
    expect(await bookOne(store, rpm, [1])).toMatchObject({ booked: true, marks: [1], levels: [9] });
    expect(calls.map((c) => c.command)).toEqual(["eval", "evalsha", "evalsha", "eval"]);
    expect(calls[3]!.keys).toEqual(["{k}:b", "{k}:c", "{k}:d"]);
    expect(calls[3]!.args).toEqual(calls[2]!.args);
  });

  it("sends nothing while the client is not ready: waits for it within timeoutMs, then fails, leaving no timer", async () => {
    vi.useFakeTimers();
    const client = fakeClient(async () => ["1", "0", "0", "", "0", "9", "0"]);
    let ready = false;
    const store = new RedisStore({ client: { ...client, isReady: () => ready }, key: "k", timeoutMs: TIMEOUT });
    const refused = bookOne(store, rpm, [1]).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(TIMEOUT);
    const error = await refused;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/did not connect within 1234 ms/);
    expect(client.calls).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);

    // A client still connecting (at start-up) is waited for, not taken as down.
    const waited = bookOne(store, rpm, [1]);
    await vi.advanceTimersByTimeAsync(TIMEOUT / 2);
    expect(client.calls).toHaveLength(0);
    ready = true;
    await vi.advanceTimersByTimeAsync(10);
    expect(await waited).toMatchObject({ booked: true, marks: [1] });
    expect(client.calls).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses a malformed reply", async () => {
    const { store } = storeAnswering(async () => ["1", "0"]);
    await expect(bookOne(store, rpm, [1])).rejects.toThrow(/Unexpected reply/);
  });
});

describe("arguments (no server)", () => {
  const { store, calls } = storeAnswering(async () => null);

  it("refuses misaligned or non-finite numbers before any round trip", async () => {
    await expect(bookOne(store, rpm, [1, 2])).rejects.toThrow(RangeError);
    await expect(bookOne(store, rpm, [Number.NaN])).rejects.toThrow(RangeError);
    await expect(store.adjust(rpm, [Infinity])).rejects.toThrow(RangeError);
    await expect(store.lower(rpm, 1, 10, undefined)).rejects.toThrow(RangeError);
    await expect(store.lower(rpm, 0, 10, Number.NaN)).rejects.toThrow(RangeError);
    await expect(store.pause(rpm, [3], 100)).rejects.toThrow(RangeError);
    await expect(bookOne(store, layout([dim("rpm", 0)]), [1])).rejects.toThrow(RangeError);
    expect(calls).toHaveLength(0);
  });

  it("skips the round trip when there is nothing to do", async () => {
    await store.renew([]);
    await store.pause(rpm, [], 100);
    await store.pause(rpm, undefined, 0);
    expect(calls).toHaveLength(0);
  });

  it("generates a fresh lease id per attempt", async () => {
    const shape = layout([dim("rpm", 10)], { concurrency: 1 });
    await bookOne(store, shape, [1]).catch(() => undefined);
    await bookOne(store, shape, [1]).catch(() => undefined);
    const ids = calls.slice(-2).map((c) => c.args.at(-1));
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});

describe("adapters: whether the client is ready (no server)", () => {
  const call = async (): Promise<unknown> => null;

  it.each([
    ["ready", true],
    ["wait", true], // a lazyConnect client: its first command connects it
    ["connecting", false],
    ["reconnecting", false],
    ["end", false],
  ])("ioredis with status %s: %s", (status, ready) => {
    expect(ioredis({ status, evalsha: call, eval: call }).isReady!()).toBe(ready);
  });

  it("node-redis: its isReady, and ready when it has none (a cluster client)", () => {
    expect(nodeRedis({ isReady: false, evalSha: call, eval: call }).isReady!()).toBe(false);
    expect(nodeRedis({ isReady: true, evalSha: call, eval: call }).isReady!()).toBe(true);
    expect(nodeRedis({ evalSha: call, eval: call }).isReady!()).toBe(true);
  });
});

describe("options (no server)", () => {
  const client = fakeClient(never);

  it("applies defaults", () => {
    expect(new RedisStore({ client, key: "k" }).leaseMs).toBe(60_000);
  });

  it.each([
    [{ client: {} as never, key: "k" }, TypeError],
    [{ client, key: "" }, TypeError],
    [{ client, key: "k", timeoutMs: 0 }, RangeError],
    [{ client, key: "k", timeoutMs: Number.NaN }, RangeError],
    [{ client, key: "k", leaseMs: 2 ** 31 }, RangeError],
    [{ client, key: "k", leaseMs: -1 }, RangeError],
  ])("refuses %o", (options, type) => {
    expect(() => new RedisStore(options)).toThrow(type);
  });
});
