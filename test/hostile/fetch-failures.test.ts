import { describe, expect, it } from "vitest";
import { Limiter, type Reservation, type SyncOptions } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { useFakeTime } from "../fake-time.js";

/**
 * A failure is synced at its headers; a 429's body is read on its own: at most its first 64 KiB, for 1 s at
 * most, even after the caller cancels, and synced again with whatever of it came, for what it adds.
 */

const time = useFakeTime({ fake: "timeouts" });

/** A body the test writes to. */
function source(): { body: ReadableStream<Uint8Array>; write: (text: string) => void; end: () => void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    body,
    write: (text) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
  };
}

function setUp(answer: () => Response) {
  const warnings: Error[] = [];
  const limiter = new Limiter({
    tpm: 1_000_000,
    concurrency: 1,
    initial: "full",
    clock: time.clock,
    onWarning: (w) => warnings.push(w),
  });
  const syncs: SyncOptions[] = [];
  const fetch = limitedFetch(
    () => ({
      acquire: async (estimate, options): Promise<Reservation> => {
        const reservation = await limiter.acquire(estimate, options);
        return {
          estimate,
          get signal() {
            return reservation.signal;
          },
          get released() {
            return reservation.released;
          },
          sync(headers, syncOptions) {
            syncs.push(syncOptions ?? {});
            return reservation.sync(headers, syncOptions);
          },
          settle: (used) => reservation.settle(used),
          refund: () => reservation.refund(),
          release: () => reservation.release(),
        };
      },
    }),
    { fetch: () => Promise.resolve(answer()) },
    { checkPriority: () => undefined, warn: (w) => warnings.push(w) },
  );
  const call = (): Promise<Response> =>
    fetch("https://api.openai.com/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }], max_tokens: 10 }),
    });
  return { limiter, syncs, call, warnings };
}

/** Lets promise callbacks run (no timer moves). */
const turns = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const rateLimited = { error: { message: "Rate limit reached. Please try again in 20s.", type: "tokens" } };

describe("a failure's body, read on its own", () => {
  it("is still read after the caller cancels, which frees the slot at once; the 429 is synced again with it", async () => {
    const upstream = source();
    const { limiter, syncs, call } = setUp(() => new Response(upstream.body, { status: 429 }));
    const response = await call();
    await response.body!.cancel();
    expect(limiter.snapshot().inFlight).toBe(0);
    expect(syncs).toEqual([{ status: 429 }]);
    upstream.write(JSON.stringify(rateLimited));
    upstream.end();
    await turns();
    expect(syncs).toEqual([{ status: 429 }, { status: 429, body: rateLimited }]);
    // The body's hint (20 s) pauses admission; the headers carried none.
    expect(limiter.snapshot().pauses).toMatchObject([{ dimensions: ["tpm"] }]);
    expect(limiter.tryAcquire(1)).toBeUndefined();
  });

  it("that never comes: the 429's headers were synced at once, and the slot is freed after 1 s", async () => {
    const upstream = source();
    const { limiter, syncs, call } = setUp(
      () => new Response(upstream.body, { status: 429, headers: { "retry-after": "30" } }),
    );
    const response = await call();
    expect(response.status).toBe(429);
    // The headers' hint is in force before any of the body comes.
    expect(syncs).toEqual([{ status: 429 }]);
    expect(limiter.tryAcquire(1)).toBeUndefined();
    await time.at(999);
    expect(limiter.snapshot().inFlight).toBe(1);
    await time.at(1_000);
    expect(syncs).toEqual([{ status: 429 }]);
    expect(limiter.snapshot().inFlight).toBe(0);
    // The caller's body is still the caller's.
    upstream.write("late");
    upstream.end();
    expect(await response.text()).toBe("late");
  });

  it("is read to its first 64 KiB only; the caller gets all of it", async () => {
    const upstream = source();
    const { syncs, call } = setUp(() => new Response(upstream.body, { status: 429 }));
    const response = await call();
    const text = "e".repeat(100_000);
    upstream.write(text);
    await turns();
    expect(syncs).toEqual([{ status: 429 }, { status: 429, body: "e".repeat(65_536) }]);
    upstream.end();
    expect(await response.text()).toBe(text);
  });

  it("of another status is not read: the failure is synced and the slot freed at its headers", async () => {
    const upstream = source();
    const { limiter, syncs, call } = setUp(() => new Response(upstream.body, { status: 500 }));
    const response = await call();
    expect(syncs).toEqual([{ status: 500 }]);
    expect(limiter.snapshot().inFlight).toBe(0);
    upstream.write("oops");
    upstream.end();
    expect(await response.text()).toBe("oops");
  });
});

describe("a JSON body too long to read for its usage", () => {
  it("passes whole, unread, with a warning; the estimate stands", async () => {
    const text = JSON.stringify({
      filler: "f".repeat(9 * 1024 * 1024),
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
    const { limiter, syncs, call, warnings } = setUp(
      () => new Response(text, { headers: { "content-type": "application/json" } }),
    );
    const settled: unknown[] = [];
    limiter.on("settled", (event) => settled.push(event.usage));
    const response = await call();
    expect(await response.text()).toBe(text);
    expect(settled).toEqual([undefined]);
    expect(syncs).toEqual([{ status: 200 }]);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("the estimate stands")]);
  });
});
