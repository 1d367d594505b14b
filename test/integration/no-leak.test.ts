import Anthropic from "@anthropic-ai/sdk";
import { getEventListeners } from "node:events";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Limiter, type Reservation } from "../../src/index.js";
import { createProvider } from "../../src/testing/index.js";
import type { Dialect } from "../../src/testing/index.js";

// Nothing accumulates per call (design invariant 7) on the quick start's path, with the real SDKs.
// Both SDKs add an abort listener to the signal they are given; openai-node never removes it.

const CALLS = 20_000;
const WARM_UP = 2_000;
const MAX_BYTES_PER_CALL = 100;
// Concurrency 2 and batches of 8: six waiters queue with the caller's signal, under Node's 10-listener warning.
const BATCH = 8;
const LIMITS = { rpm: 1e9, tpm: 1e12, concurrency: 2 };
const ESTIMATE = 26;
const messages = [{ role: "user" as const, content: "Hi" }];

/**
 * A `fetch` that answers in process with one response the simulator sent: 20,000
 * calls over HTTP are too slow here, and a simulator keeps a record per call.
 * The SDKs attach their listeners in `fetchWithTimeout`, around any `fetch`.
 */
async function replaying(dialect: Dialect): Promise<Fetch> {
  const result = await createProvider({ ...LIMITS, dialect }).call({ prompt: 10, maxTokens: 16, actual: 5 });
  const body = JSON.stringify(result.body);
  const headers = { ...result.headers, "content-type": "application/json" };
  return async () => new Response(body, { status: result.status, headers });
}

type Fetch = typeof globalThis.fetch;
type SdkCall = (signal: AbortSignal) => Promise<{ headers: Headers; used: number }>;

const sdks: Record<"openai" | "anthropic", (fetch: Fetch) => SdkCall> = {
  openai: (fetch) => {
    const client = new OpenAI({ apiKey: "test-key", maxRetries: 0, fetch });
    return async (signal) => {
      const { data, response } = await client.chat.completions
        .create({ model: "gpt-sim", messages, max_tokens: 16 }, { signal })
        .withResponse();
      return { headers: response.headers, used: data.usage?.total_tokens ?? ESTIMATE };
    };
  },
  anthropic: (fetch) => {
    const client = new Anthropic({ apiKey: "test-key", maxRetries: 0, fetch });
    return async (signal) => {
      const { data, response } = await client.messages
        .create({ model: "claude-sim", messages, max_tokens: 16 }, { signal })
        .withResponse();
      return { headers: response.headers, used: data.usage.input_tokens + data.usage.output_tokens };
    };
  },
};

/** Listeners left on the signal the SDK was given, and the usage to settle. */
async function callThrough(reservation: Reservation, call: SdkCall): Promise<{ value: number; used: number }> {
  const { headers, used } = await call(reservation.signal);
  reservation.sync(headers);
  return { value: getEventListeners(reservation.signal, "abort").length, used };
}

/** One call as the README writes it: even ones through `run`, odd ones through `acquire`. */
async function userCall(
  limiter: Limiter,
  call: SdkCall,
  signal: AbortSignal | undefined,
  index: number,
): Promise<number> {
  const options = signal ? { signal } : undefined;
  if (index % 2 === 0) return limiter.run(ESTIMATE, (r) => callThrough(r, call), options);
  const r = await limiter.acquire(ESTIMATE, options);
  try {
    const { value, used } = await callThrough(r, call);
    r.settle(used);
    return value;
  } finally {
    r.release();
  }
}

const gc = globalThis.gc;

/** Heap in use once everything collectable is collected (finalizers run between passes). */
async function retainedHeap(): Promise<number> {
  if (!gc) throw new Error("run with --expose-gc (vitest.config.ts sets execArgv)");
  for (let pass = 0; pass < 4; pass++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

/** Runs `count` calls, `BATCH` at a time; returns the listener count the last one left on its SDK signal. */
async function drive(count: number, once: (index: number) => Promise<number>): Promise<number> {
  let left = 0;
  for (let done = 0; done < count; done += BATCH) {
    const batch: Promise<number>[] = [];
    for (let i = 0; i < BATCH; i++) batch.push(once(i));
    left = (await Promise.all(batch))[BATCH - 1]!;
  }
  return left;
}

const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  if (warning.name === "MaxListenersExceededWarning") warnings.push(warning);
};
beforeEach(() => {
  warnings.length = 0;
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

describe.each(Object.keys(sdks) as (keyof typeof sdks)[])("%s SDK", (sdk) => {
  it.each([false, true])(
    `${CALLS} calls through run and acquire, a long-lived signal of the caller's: %s; nothing accumulates`,
    async (withSignal) => {
      const call = sdks[sdk](await replaying(sdk));
      const limiter = new Limiter({ ...LIMITS, provider: sdk });
      const caller = withSignal ? new AbortController() : undefined;
      const once = (index: number): Promise<number> => userCall(limiter, call, caller?.signal, index);

      const leftAfterWarmUp = await drive(WARM_UP, once);
      const before = await retainedHeap();
      const leftAtEnd = await drive(CALLS - WARM_UP, once);
      const after = await retainedHeap();
      const bytesPerCall = (after - before) / (CALLS - WARM_UP);

      expect(leftAtEnd, "listeners on the signal an SDK call was given").toBe(leftAfterWarmUp);
      if (caller) expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
      expect(warnings.map((w) => w.message)).toEqual([]);
      expect(bytesPerCall, `heap retained per call: ${bytesPerCall.toFixed(1)} B`).toBeLessThan(MAX_BYTES_PER_CALL);
      expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
    },
    60_000,
  );

  it("aborting the caller's signal aborts the call in flight", async () => {
    let started!: () => void;
    const inFetch = new Promise<void>((resolve) => (started = resolve));
    // Answers only by rejecting when the request is aborted.
    const hanging: Fetch = (_url, init) =>
      new Promise((_resolve, reject) => {
        init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason), { once: true });
        started();
      });
    const limiter = new Limiter({ ...LIMITS, provider: sdk });
    const caller = new AbortController();
    const answer = userCall(limiter, sdks[sdk](hanging), caller.signal, 0).catch((error: unknown) => error);
    await inFetch;
    caller.abort(new Error("shutting down"));
    expect(await answer).toBeInstanceOf(sdk === "openai" ? OpenAI.APIUserAbortError : Anthropic.APIUserAbortError);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
  });
});
