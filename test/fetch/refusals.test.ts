import { describe, expect, it } from "vitest";
import { Limiter, LimiterClosedError, LimiterGroup, WaitTimeoutError } from "../../src/index.js";
import { LIMITER_ERROR_HEADER, limitedFetch } from "../../src/fetch/index.js";
import type { Admitter } from "../../src/fetch/index.js";
import { eventually } from "./recording.js";

const URL_CHAT = "https://api.openai.com/v1/chat/completions";

const post = (body: unknown, signal?: AbortSignal): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
  ...(signal ? { signal } : {}),
});

const chat = (maxTokens: number) => ({
  model: "gpt-4o",
  messages: [{ role: "user", content: "Hello there" }],
  max_tokens: maxTokens,
});

/** A limited fetch whose base fetch counts what it was sent (it answers a 200 that names no usage). */
function setUp(limiter: Limiter) {
  let sent = 0;
  const fetch = limiter.fetch({
    fetch: async () => {
      sent += 1;
      return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  return { fetch, sent: () => sent };
}

/** A limited fetch whose every admission rejects with `error`. */
function refusing(error: unknown): typeof globalThis.fetch {
  const admitter: Admitter = { acquire: () => Promise.reject(error) };
  return limitedFetch(() => admitter, { fetch: () => Promise.reject(new Error("sent")) });
}

interface RefusalBody {
  type: string;
  message: string;
  error: Record<string, unknown> & { type: string; code: string; message: string };
}

async function bodyOf(response: Response): Promise<RefusalBody> {
  expect(response.headers.get("content-type")).toBe("application/json");
  return (await response.json()) as RefusalBody;
}

/** The response carries no header the limiter's header sync would read as the provider's levels. */
function expectNoRateLimitHeaders(response: Response): void {
  const names = [...response.headers.keys()];
  expect(names.filter((n) => n.includes("ratelimit") || n.startsWith("anthropic-"))).toEqual([]);
}

describe("limiter.fetch() refusals answer as a provider's", () => {
  it("a request that can never fit: 413, the budget and the cost in both SDK dialects' message fields", async () => {
    const limiter = new Limiter({ tpm: 1_000, initial: "full" });
    const { fetch, sent } = setUp(limiter);
    const response = await fetch(URL_CHAT, post(chat(2_000)));
    expect(response.status).toBe(413);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(response.headers.get(LIMITER_ERROR_HEADER)).toBe("REQUEST_TOO_LARGE");
    expect(response.headers.get("retry-after")).toBeNull();
    expectNoRateLimitHeaders(response);
    const body = await bodyOf(response);
    expect(body.message).toMatch(/^llm-limiter: Request costs \d+ on "tpm" but its capacity is 1000/);
    expect(body).toEqual({
      type: "error",
      message: body.message,
      error: {
        type: "llm_limiter_error",
        code: "REQUEST_TOO_LARGE",
        message: body.message,
        param: null,
        dimension: "tpm",
        cost: expect.any(Number) as number,
        capacity: 1_000,
        headroom: 0,
        details: { error_code: "REQUEST_TOO_LARGE" },
      },
    });
    expect(body.error.cost).toBeGreaterThan(2_000);
    expect(sent()).toBe(0);
    // Nothing held, nothing synced: the bucket is as full as before.
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0, dimensions: { tpm: { available: 1_000 } } });
  });

  it("a full queue: 400 QUEUE_FULL, not retried", async () => {
    const limiter = new Limiter({ tpm: 1_000, concurrency: 1, maxQueue: 1, initial: "full" });
    const held = limiter.tryAcquire({ input: 1, output: 1 })!;
    const { fetch, sent } = setUp(limiter);
    const queued = fetch(URL_CHAT, post(chat(10)));
    await eventually(() => limiter.snapshot().queued === 1);
    const response = await fetch(URL_CHAT, post(chat(10)));
    expect(response.status).toBe(400);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(response.headers.get(LIMITER_ERROR_HEADER)).toBe("QUEUE_FULL");
    const body = await bodyOf(response);
    expect(body.error).toMatchObject({ code: "QUEUE_FULL", max_queue: 1 });
    expect(body.message).toBe("llm-limiter: The admission queue is full (maxQueue 1)");
    held.release();
    expect((await queued).status).toBe(200);
    expect(sent()).toBe(1);
  });

  it("a closed limiter: 400 LIMITER_CLOSED, not retried", async () => {
    const limiter = new Limiter({ tpm: 1_000, initial: "full" });
    await limiter.close();
    const { fetch, sent } = setUp(limiter);
    const response = await fetch(URL_CHAT, post(chat(10)));
    expect(response.status).toBe(400);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(response.headers.get(LIMITER_ERROR_HEADER)).toBe("LIMITER_CLOSED");
    expect((await bodyOf(response)).error).toMatchObject({
      code: "LIMITER_CLOSED",
      message: "llm-limiter: The limiter is closed",
    });
    expect(sent()).toBe(0);
  });

  it("a wait past maxWaitMs: 429 with the wait until the budget has room as its hint, retry left to the SDK", async () => {
    const limiter = new Limiter({ rpm: 100, tpm: 1_000, maxWaitMs: 1_000, initial: "full" });
    const drained = limiter.tryAcquire({ input: 1_000, output: 0 })!;
    drained.settle({ input: 1_000, output: 0 });
    drained.release(); // spent, not in flight: the wait is known, and refused at once
    const { fetch, sent } = setUp(limiter);
    const before = Date.now();
    const response = await fetch(URL_CHAT, post(chat(100)));
    expect(response.status).toBe(429);
    expect(response.headers.get("x-should-retry")).toBeNull();
    expect(response.headers.get(LIMITER_ERROR_HEADER)).toBe("WAIT_TIMEOUT");
    expectNoRateLimitHeaders(response);
    const body = await bodyOf(response);
    // The cost (100 tokens of output, a few of input) refills at a token per 60 ms: at least 6 s.
    const cost = 100;
    const hint = Number(response.headers.get("retry-after-ms"));
    expect(hint).toBeGreaterThanOrEqual(cost * 60 - (Date.now() - before) - 1);
    expect(hint).toBeLessThanOrEqual(Number(body.error.wait_ms));
    expect(response.headers.get("retry-after")).toBe(String(Math.ceil(hint / 1000)));
    expect(body.error).toMatchObject({ code: "WAIT_TIMEOUT", dimension: "tpm", max_wait_ms: 1_000 });
    expect(body.error.available_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
    expect(body.message).toMatch(/^llm-limiter: Admission on "tpm" needs \d+ ms/);
    expect(sent()).toBe(0);
    // Not synced: a 429 with a hint would pause all admission, and a call that needs no tokens is admitted.
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(limiter.tryAcquire({ input: 0, output: 0 })).toBeDefined();
  });

  it.each([
    ["a wait within the bound", 5_000, "5000", "5", null],
    ["a wait of under a millisecond", 0, "1", "1", null],
    ["a wait past the SDKs' bound", 3 * 3_600_000, "10800000", "10800", "false"],
  ] as const)("%s (%i ms): retry-after-ms %s, retry-after %s, x-should-retry %s", async (_name, inMs, ms, s, retry) => {
    const at = Date.now() + inMs;
    const response = await refusing(new WaitTimeoutError("tpm", inMs, 100, { windowMs: 60_000, availableAt: at }))(
      URL_CHAT,
      post(chat(10)),
    );
    // The hint counts from the answer: it is short by the time the answer took (long on a busy machine).
    const took = Date.now() - at + inMs;
    expect(response.status).toBe(429);
    expect(Number(response.headers.get("retry-after-ms"))).toBeGreaterThanOrEqual(Number(ms) - took - 1);
    expect(Number(response.headers.get("retry-after-ms"))).toBeLessThanOrEqual(Number(ms));
    expect(response.headers.get("retry-after")).toBe(s);
    expect(response.headers.get("x-should-retry")).toBe(retry);
  });

  it("a wait that cannot be timed (every slot held) hints 1 s", async () => {
    const response = await refusing(new WaitTimeoutError("concurrency", 100, 100, { slots: 2 }))(
      URL_CHAT,
      post(chat(10)),
    );
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after-ms")).toBe("1000");
    expect(response.headers.get("retry-after")).toBe("1");
    expect((await bodyOf(response)).error).toMatchObject({ dimension: "concurrency", available_at: null });
  });

  it("an abort rejects with its reason, even a reason that is a limiter's error", async () => {
    const limiter = new Limiter({ tpm: 1_000, concurrency: 1, initial: "full" });
    const held = limiter.tryAcquire({ input: 1, output: 1 })!;
    const { fetch, sent } = setUp(limiter);
    const controller = new AbortController();
    const queued = fetch(URL_CHAT, post(chat(10), controller.signal));
    await eventually(() => limiter.snapshot().queued === 1);
    const reason = new LimiterClosedError();
    controller.abort(reason);
    await expect(queued).rejects.toBe(reason);
    held.release();
    expect(sent()).toBe(0);
    expect(limiter.snapshot()).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("group.fetch(): a call over its member's or the shared budget answers 413 too, naming that budget", async () => {
    const group = new LimiterGroup({ models: { "gpt-4o": { tpm: 100_000 } }, shared: { tpm: 1_000 }, initial: "full" });
    let sent = 0;
    const fetch = group.fetch({ fetch: () => Promise.resolve(new Response("{}", { status: (sent += 1) && 200 })) });
    const response = await fetch(URL_CHAT, post(chat(2_000)));
    expect(response.status).toBe(413);
    expect((await bodyOf(response)).error).toMatchObject({ code: "REQUEST_TOO_LARGE", capacity: 1_000 });
    expect(sent).toBe(0);
    await group.close();
  });

  it("an error that is no refusal rejects as it is", async () => {
    const error = new TypeError("bad priority");
    await expect(refusing(error)(URL_CHAT, post(chat(10)))).rejects.toBe(error);
  });
});
