/**
 * `upstash()`: the real `@upstash/redis` client, over HTTP, through a bridge
 * that speaks Upstash's REST protocol in front of the test redis-server. The
 * store tests parametrised by adapter run over it too (helpers.ts); this file
 * covers what is Upstash's own: each way the client can be built, its error
 * shapes, the default timeout, and limiters sharing a quota over it.
 */
import { randomUUID } from "node:crypto";
import type { RedisConfigNodejs } from "@upstash/redis";
import { afterAll, describe, expect, it } from "vitest";
import { Limiter, WaitTimeoutError, type CustomLimit } from "../../src/index.js";
import {
  RedisStore,
  StoreReplyError,
  StoreUnavailableError,
  upstash,
  type RedisScriptClient,
} from "../../src/redis/index.js";
import { UPSTASH_TIMEOUT_MS } from "../../src/redis/upstash.js";
import { resolveOptions } from "../../src/redis/options.js";
import { scripts } from "../../src/redis/scripts/index.js";
import { bookOne } from "./book-one.js";
import { ADAPTERS, describeRedis, rawRedis, redisUrl, sleep } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { startUpstashBridge, upstashClient, type UpstashBridge } from "./upstash-bridge.js";

/** The ways users build the client that change what goes over the wire or comes back. */
const CONFIGS: [string, Partial<RedisConfigNodejs>][] = [
  ["its defaults", {}],
  ["automaticDeserialization: false", { automaticDeserialization: false }],
  ["responseEncoding: false (plain JSON, no base64)", { responseEncoding: false }],
  ["enableAutoPipelining: false", { enableAutoPipelining: false }],
];

/** A reply with every kind of field a script can send: integers, numbers and JSON as strings, a nil, UTF-8. */
const PROBE = `return {1, -7, '1.5', 'rpm', '', 'true', '{"a":1}', '0.10000000000000001', '42', 'OK', 'é', false}`;

const WRONGTYPE = /^WRONGTYPE Operation against a key holding the wrong kind of value/;

describeRedis("upstash(): @upstash/redis over Upstash's REST protocol", () => {
  const raw = rawRedis();
  const bridges: UpstashBridge[] = [];
  afterAll(async () => {
    await Promise.all(bridges.map((b) => b.close()));
  });
  const bridge = async (token?: string): Promise<UpstashBridge> => {
    const made = await startUpstashBridge(redisUrl!, { token });
    bridges.push(made);
    return made;
  };
  const ioredisConnection = ADAPTERS.ioredis(redisUrl!);
  afterAll(async () => (await ioredisConnection).close());

  describe.each(CONFIGS)("a client built with %s", (_, config) => {
    const client = async (): Promise<{ adapter: RedisScriptClient; bridge: UpstashBridge }> => {
      const made = await bridge();
      return { adapter: upstash(upstashClient(made, config)), bridge: made };
    };

    it("gives back a script's reply as ioredis does", async () => {
      const { adapter } = await client();
      const expected = await (await ioredisConnection).client.eval(PROBE, [], []);
      expect(expected).toEqual([
        1,
        -7,
        "1.5",
        "rpm",
        "",
        "true",
        '{"a":1}',
        "0.10000000000000001",
        "42",
        "OK",
        "é",
        null,
      ]);
      const reply = (await adapter.eval(PROBE, [], [])) as unknown[];
      if (config.automaticDeserialization === false) expect(reply).toEqual(expected);
      // Parsed from JSON, a number stays a number (the store reads either alike); everything else is the text.
      else
        expect(reply.map((x) => (typeof x === "number" ? String(x) : x))).toEqual(
          (expected as unknown[]).map((x) => (typeof x === "number" ? String(x) : x)),
        );
      expect(await adapter.eval("return nil", [], [])).toBeNull();
    });

    it("books, settles, leases and releases through RedisStore", async () => {
      const { adapter } = await client();
      const store = new RedisStore({ client: adapter, key: `upstash:${randomUUID()}` });
      const shape = layout([dim("rpm", 10), dim("tpm", 1_000)], { concurrency: 1 });
      const start = performance.now();
      const first = await bookOne(store, shape, [1, 400]);
      expect(first).toMatchObject({ booked: true, waitMs: 0, marks: [1, 400] });
      expect(first.lease).toEqual(expect.any(String));
      // The one slot is held: the next booking takes nothing.
      expect(await bookOne(store, shape, [1, 100])).toMatchObject({ booked: false, dimension: "concurrency" });
      await store.adjust(shape, [0, 300]); // a settle: 300 of the 400 given back
      await store.release(first.lease!);
      expect(await bookOne(store, shape, [1, 100])).toMatchObject({ booked: true, waitMs: 0 });
      const { levels } = await store.book(shape, []);
      const refill = ((performance.now() - start) * 1_000) / 60_000;
      expect(levels[1]).toBeGreaterThanOrEqual(1_000 - 400 + 300 - 100);
      expect(levels[1]).toBeLessThanOrEqual(1_000 - 400 + 300 - 100 + refill);
    });

    it("recovers from NOSCRIPT: EVALSHA, then EVAL, which loads the script again", async () => {
      const { adapter, bridge } = await client();
      const store = new RedisStore({ client: adapter, key: `upstash:${randomUUID()}` });
      const shape = layout([dim("rpm", 10)]);
      await bookOne(store, shape, [1]);
      await bookOne(store, shape, [1]);
      await raw.script("FLUSH");
      bridge.commands.length = 0;
      expect(await bookOne(store, shape, [1])).toMatchObject({ booked: true, marks: [3] });
      expect(bridge.commands).toEqual(["EVALSHA", "EVAL"]);
      expect(await raw.script("EXISTS", scripts.book.sha1)).toEqual([1]);
    });

    it("gives an error reply as the server's text alone: WRONGTYPE rejects at once with StoreReplyError", async () => {
      const { adapter } = await client();
      const key = `upstash:${randomUUID()}`;
      await raw.set(`{${key}}:b`, "someone else's");
      const shape = layout([dim("rpm", 10)]);
      const over = await bookOne(new RedisStore({ client: adapter, key }), shape, [1]).catch((e: unknown) => e);
      const direct = await bookOne(new RedisStore({ client: (await ioredisConnection).client, key }), shape, [1]).catch(
        (e: unknown) => e,
      );
      expect(over).toBeInstanceOf(StoreReplyError);
      expect(over).toMatchObject({ replyCode: "WRONGTYPE", reply: (direct as StoreReplyError).reply });
      expect((over as StoreReplyError).reply).toMatch(WRONGTYPE);
    });
  });

  describe("in order, as on one connection", () => {
    const SLOW = "return redis.call('SET', KEYS[1], 'first')";
    const set = (value: string) => `return redis.call('SET', KEYS[1], '${value}')`;
    /** A bridge that holds the SLOW script `ms` before it runs. */
    const slowFirst = async (ms: number): Promise<UpstashBridge> => {
      const made = await startUpstashBridge(redisUrl!, { delayMs: (command) => (command[1] === SLOW ? ms : 0) });
      bridges.push(made);
      return made;
    };

    it("a command sent while another is on its way runs after it", async () => {
      const made = await slowFirst(150);
      const adapter = upstash(upstashClient(made));
      const key = `upstash:${randomUUID()}`;
      const first = adapter.eval(SLOW, [key], []);
      await sleep(20);
      await Promise.all([first, adapter.eval(set("second"), [key], [])]);
      expect(await raw.get(key)).toBe("second");
    });

    it("the commands that waited go together in one request, in the order they were sent", async () => {
      const made = await slowFirst(150);
      const adapter = upstash(upstashClient(made, { enableAutoPipelining: false }));
      const key = `upstash:${randomUUID()}`;
      const sent = [adapter.eval(SLOW, [key], [])];
      for (const value of ["a", "b", "c"]) {
        await sleep(10);
        sent.push(adapter.eval(set(value), [key], []));
      }
      expect(await Promise.all(sent)).toEqual(["OK", "OK", "OK", "OK"]);
      expect(await raw.get(key)).toBe("c");
      expect(made.requests).toEqual({ "/": 1, "/pipeline": 1 });
    });

    it("a command that waited past the timeout for the one before is dropped, never sent", async () => {
      const made = await slowFirst(200);
      const adapter = upstash(upstashClient(made), { timeoutMs: 50 });
      expect(adapter.defaultTimeoutMs).toBe(50);
      const key = `upstash:${randomUUID()}`;
      const first = adapter.eval(SLOW, [key], []);
      await sleep(10);
      const dropped = await adapter.eval(set("late"), [key], []).catch((e: unknown) => e);
      await first;
      expect((dropped as Error).message).toMatch(/waited past its timeout/);
      expect(made.commands).toEqual(["EVAL"]);
      expect(await raw.get(key)).toBe("first");
    });

    it("one sent after the request before it outlived the timeout goes at once", async () => {
      const made = await slowFirst(300);
      const adapter = upstash(upstashClient(made), { timeoutMs: 50 });
      const key = `upstash:${randomUUID()}`;
      const first = adapter.eval(SLOW, [key], []);
      await sleep(100);
      await adapter.eval(set("second"), [key], []);
      expect(await raw.get(key)).toBe("second");
      await first;
    });
  });

  it("is taken as it is by RedisStore, with a default timeout for HTTPS that an option overrides", async () => {
    const made = await bridge();
    const client = upstashClient(made);
    expect(resolveOptions({ client, key: "k" }).timeoutMs).toBe(UPSTASH_TIMEOUT_MS);
    expect(resolveOptions({ client: upstash(client), key: "k" }).timeoutMs).toBe(3_000);
    expect(resolveOptions({ client, key: "k", timeoutMs: 800 }).timeoutMs).toBe(800);
    // The other clients keep theirs.
    expect(resolveOptions({ client: (await ioredisConnection).client, key: "k" }).timeoutMs).toBe(250);
    const store = new RedisStore({ client, key: `upstash:${randomUUID()}` });
    expect(await bookOne(store, layout([dim("rpm", 10)]), [2])).toMatchObject({ booked: true, marks: [2] });
  });

  it("a token the REST API refuses is a final NOAUTH reply, not an outage", async () => {
    const made = await bridge("the-right-token");
    const client = upstashClient({ ...made, token: "a-wrong-token" });
    const error: unknown = await bookOne(new RedisStore({ client, key: "k" }), layout([dim("rpm", 10)]), [1]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreReplyError);
    expect(error).toMatchObject({ replyCode: "NOAUTH" });
    expect((error as Error).message).toMatch(/Unauthorized/);
  });

  it("an endpoint that does not answer is StoreUnavailableError", async () => {
    const made = await bridge();
    await made.close();
    const store = new RedisStore({ client: upstashClient(made), key: "k", timeoutMs: 1_000 });
    const error: unknown = await bookOne(store, layout([dim("rpm", 10)]), [1]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });

  it("two limiters on two clients share one quota: admission, settles, header sync and a 429's pause", async () => {
    const key = `upstash:${randomUUID()}`;
    const made = await Promise.all([bridge(), bridge()]);
    const [a, b] = made.map(
      (m) => new Limiter({ rpm: 100, tpm: 1_000, store: new RedisStore({ client: upstashClient(m), key }) }),
    ) as [Limiter, Limiter];
    const now = { maxWaitMs: 0 };
    // Admission: 600 in a, so 500 more does not fit in b.
    const first = await a.acquire(600, now);
    await expect(b.acquire(500, now)).rejects.toBeInstanceOf(WaitTimeoutError);
    // A settle for 100 gives 500 back to everybody once written.
    first.settle(100);
    first.release();
    await a.onIdle();
    await a.close();
    const second = await b.acquire(500, now);
    second.release();
    // Header sync from b: 50 tokens left at the provider, so c (a third process) cannot take 100.
    const c = new Limiter({ rpm: 100, tpm: 1_000, store: new RedisStore({ client: upstashClient(made[0]), key }) });
    const third = await c.acquire(10, now);
    third.sync({
      "x-ratelimit-limit-tokens": "1000",
      "x-ratelimit-remaining-tokens": "50",
      "x-ratelimit-reset-tokens": "57s",
    });
    third.release();
    await c.close();
    await expect(b.acquire(100, now)).rejects.toBeInstanceOf(WaitTimeoutError);
    // A 429 with retry-after pauses the key for every process.
    const d = new Limiter({ rpm: 100, tpm: 1_000, store: new RedisStore({ client: upstashClient(made[0]), key }) });
    const fourth = await d.acquire(1, now);
    fourth.sync({ "retry-after": "30" }, { status: 429 });
    fourth.release();
    await d.close();
    await expect(b.acquire(1, now)).rejects.toBeInstanceOf(WaitTimeoutError);
    await b.close();
  });

  it("a lone caller admitting one request after another sends about one HTTP request per 17 admissions", async () => {
    const made = await bridge();
    const limits: Record<string, CustomLimit> = { requests: { unit: "requests", limit: 10_000, windowMs: 3_600_000 } };
    const limiter = new Limiter({
      limits,
      store: new RedisStore({ client: upstashClient(made), key: `upstash:${randomUUID()}` }),
    });
    for (let i = 0; i < 200; i++) (await limiter.acquire(0)).release();
    await limiter.close();
    const requests = Object.values(made.requests).reduce((sum, n) => sum + n, 0);
    // A loaded machine may leave more than 1 ms between an admission and the next request: a few bookings more.
    expect(requests).toBeLessThan(200 / 4);
  });
});

describe("upstash(): the client's errors (no server)", () => {
  const unused = (): never => {
    throw new Error("one command at a time: no pipeline");
  };
  /** A client failing as @upstash/redis 1.39 does: an UpstashError with the command appended, or prefixed. */
  const failing = (message: string) => {
    const error = Object.assign(new Error(message), { name: "UpstashError" });
    return upstash({ evalsha: () => Promise.reject(error), eval: () => Promise.reject(error), pipeline: unused });
  };
  const book = (client: RedisScriptClient) =>
    bookOne(new RedisStore({ client, key: "k" }), layout([dim("rpm", 10)]), [1]).catch((e: unknown) => e);

  it("a reply alone, or auto-pipelined, is the server's text", async () => {
    for (const message of [
      'ERR unknown command, command was: ["eval","return 1",0]',
      "Command failed: ERR unknown command",
    ]) {
      expect(await book(failing(message))).toMatchObject({ replyCode: "ERR", reply: "ERR unknown command" });
    }
  });

  it("a limit of the Upstash database is an outage: the failure policy applies", async () => {
    const limit = "ERR max daily request limit exceeded. Limit: 10000, Usage: 10001. See https://upstash.com/docs";
    for (const message of [`${limit}, command was: ["evalsha"]`, `Command failed: ERR max requests limit exceeded.`]) {
      const error = await book(failing(message));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/limit of the database: ERR max/);
    }
  });

  it("a client that throws rejects that command, and the next goes on", async () => {
    let calls = 0;
    const client = upstash({
      evalsha: () => Promise.resolve(null),
      eval: () => {
        if (calls++ === 0) throw new TypeError("a client in a bad state");
        return Promise.resolve([1, "2"]);
      },
      pipeline: unused,
    });
    await expect(client.eval("return 1", [], [])).rejects.toThrow(/bad state/);
    expect(await client.eval("return 1", [], [])).toEqual([1, "2"]);
  });

  it("passes on an error of another kind (a network failure) as it is", async () => {
    const failure = new TypeError("fetch failed");
    const client = upstash({
      evalsha: () => Promise.reject(failure),
      eval: () => Promise.reject(failure),
      pipeline: unused,
    });
    const error = await book(client);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toBe(failure);
  });
});

describe("a client's default timeout (no server)", () => {
  const adapter = (defaultTimeoutMs: number): RedisScriptClient => ({
    evalsha: async () => null,
    eval: async () => null,
    defaultTimeoutMs,
  });

  it("applies when the options set none, and is checked as timeoutMs is", () => {
    expect(resolveOptions({ client: adapter(1_200), key: "k" }).timeoutMs).toBe(1_200);
    expect(() => new RedisStore({ client: adapter(-1), key: "k" })).toThrow(RangeError);
    expect(() => new RedisStore({ client: adapter(Number.NaN), key: "k" })).toThrow(/timeoutMs/);
    // An option given is checked, not the adapter's.
    expect(resolveOptions({ client: adapter(-1), key: "k", timeoutMs: 100 }).timeoutMs).toBe(100);
  });
});

describeRedis("upstash(): the HTTP requests of a function that lives for one LLM call", () => {
  /** One call through a limiter made for it: its booking, the response's headers and usage, close(). */
  const oneCall = async (store: RedisStore): Promise<void> => {
    const limiter = new Limiter({ rpm: 500, tpm: 200_000, store });
    const call = await limiter.acquire(1_000);
    call.sync({
      "x-ratelimit-limit-requests": "500",
      "x-ratelimit-remaining-requests": "499",
      "x-ratelimit-reset-requests": "120ms",
      "x-ratelimit-limit-tokens": "200000",
      "x-ratelimit-remaining-tokens": "199000",
      "x-ratelimit-reset-tokens": "300ms",
    });
    call.settle(400);
    call.release();
    await limiter.close();
  };

  it("four scripts in two requests; a store kept across calls sends their SHA1s, a new one their bodies", async () => {
    const made = await startUpstashBridge(redisUrl!);
    try {
      const store = new RedisStore({ client: upstashClient(made), key: `upstash:${randomUUID()}` });
      await oneCall(store);
      // The booking, then the settle and the two dimensions' readings, auto-pipelined together.
      expect(made.commands).toEqual(["EVAL", "EVAL", "EVAL", "EVAL"]);
      const first = Object.values(made.requests).reduce((sum, n) => sum + n, 0);
      expect(first).toBeLessThanOrEqual(3);
      made.commands.length = 0;
      await oneCall(store);
      expect(made.commands).toEqual(["EVALSHA", "EVALSHA", "EVALSHA", "EVALSHA"]);
    } finally {
      await made.close();
    }
  });
});
