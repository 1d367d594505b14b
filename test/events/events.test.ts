import { describe, expect, it, vi } from "vitest";
import {
  Limiter,
  LimiterClosedError,
  QueueFullError,
  RequestTooLargeError,
  WaitTimeoutError,
  type LimiterEvents,
  type LimiterOptions,
} from "../../src/index.js";
import type { LimiterEventName } from "../../src/events/types.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** A limiter on virtual time that admits one call a second, no start-up probe, no arrival allowance. */
function oneASecond(options: LimiterOptions = {}): Limiter {
  return new Limiter({
    rpm: 60,
    capacity: { rpm: 1 },
    initial: "full",
    arrivalDelayMs: 0,
    clock: time.clock,
    ...options,
  });
}

/** Every payload of `name`, in order, from now on. */
function record<K extends LimiterEventName>(limiter: Limiter, name: K): LimiterEvents[K][] {
  const seen: LimiterEvents[K][] = [];
  limiter.on(name, (event) => seen.push(event));
  return seen;
}

describe("queued and admitted", () => {
  it("tell each admission its wait, and each queueing the depth", async () => {
    const limiter = oneASecond();
    const queued = record(limiter, "queued");
    const admitted = record(limiter, "admitted");
    const first = await limiter.acquire(1);
    const second = limiter.acquire(2);
    const third = limiter.acquire(3);
    expect(queued).toEqual([
      { estimate: 2, priority: "default", tenant: undefined, queued: 1, retry: false },
      { estimate: 3, priority: "default", tenant: undefined, queued: 2, retry: false },
    ]);
    expect(admitted).toEqual([{ estimate: 1, priority: "default", tenant: undefined, waitMs: 0, inFlight: 1 }]);
    await time.at(1_000);
    await second;
    await time.at(2_000);
    await third;
    expect(admitted.slice(1)).toEqual([
      { estimate: 2, priority: "default", tenant: undefined, waitMs: 1_000, inFlight: 2 },
      { estimate: 3, priority: "default", tenant: undefined, waitMs: 2_000, inFlight: 3 },
    ]);
    first.release();
  });

  it("mark a run's retry, back at the head of the queue", async () => {
    const limiter = oneASecond({ rpm: 6_000, capacity: { rpm: 100 } });
    const queued = record(limiter, "queued");
    let attempts = 0;
    const done = limiter.run(
      1,
      () => {
        if (attempts++ === 0) throw Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "1" } });
        return { value: "ok" };
      },
      { retry: { attempts: 1 } },
    );
    await time.at(1_000);
    expect(await done).toBe("ok");
    expect(queued).toEqual([{ estimate: 1, priority: "default", tenant: undefined, queued: 1, retry: true }]);
  });
});

describe("settled", () => {
  it("tells, per dimension, what a call reserved and what it used", async () => {
    const limiter = oneASecond({ tpm: 10_000 });
    const settled = record(limiter, "settled");
    await limiter.run(1_000, async () => {
      await time.at(250);
      return { value: undefined, used: 300 };
    });
    expect(settled).toEqual([
      {
        estimate: 1_000,
        priority: "default",
        tenant: undefined,
        usage: 300,
        refunded: false,
        dimensions: {
          rpm: { unit: "requests", reserved: 1, used: 1 },
          tpm: { unit: "tokens", reserved: 1_000, used: 300 },
        },
        heldMs: 250,
      },
    ]);
  });

  it("says the estimate stands when nothing settled, and zero after a refund", async () => {
    const limiter = oneASecond({ rpm: 600, capacity: { rpm: 10 }, tpm: 10_000 });
    const settled = record(limiter, "settled");
    (await limiter.acquire(500)).release();
    const refunded = await limiter.acquire(700);
    refunded.refund();
    refunded.release();
    expect(settled.map(({ usage, refunded, dimensions }) => ({ usage, refunded, tpm: dimensions.tpm }))).toEqual([
      { usage: undefined, refunded: false, tpm: { unit: "tokens", reserved: 500, used: 500 } },
      { usage: undefined, refunded: true, tpm: { unit: "tokens", reserved: 700, used: 0 } },
    ]);
  });
});

describe("rejected", () => {
  it("names the reason and carries the error the caller gets", async () => {
    const limiter = oneASecond({ maxQueue: 1 });
    const rejected = record(limiter, "rejected");
    const held = await limiter.acquire(1);
    const controller = new AbortController();
    const aborted = limiter.acquire(1, { signal: controller.signal });
    await expect(limiter.acquire(1)).rejects.toBeInstanceOf(QueueFullError);
    await time.at(300);
    controller.abort(new Error("user left"));
    await expect(aborted).rejects.toThrow("user left");
    const timedOut = expect(limiter.acquire(1, { maxWaitMs: 200 })).rejects.toBeInstanceOf(WaitTimeoutError);
    await time.at(500);
    await timedOut;
    const waiting = limiter.acquire(1);
    await limiter.close();
    await expect(waiting).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.acquire(1)).rejects.toBeInstanceOf(LimiterClosedError);
    expect(rejected.map(({ reason, waitMs, estimate }) => [reason, waitMs, estimate])).toEqual([
      ["queue_full", 0, 1],
      ["aborted", 300, 1],
      ["timeout", 200, 1],
      ["closed", 0, 1],
      ["closed", 0, 1],
    ]);
    expect(rejected[1]!.error).toEqual(new Error("user left"));
    expect(rejected[2]!.error).toBeInstanceOf(WaitTimeoutError);
    held.release();
  });

  it("tells a wait known at once to be too long, and a request too large for a dimension", async () => {
    const limiter = oneASecond();
    const rejected = record(limiter, "rejected");
    const held = await limiter.run(1, () => ({ value: 1 })); // not refundable: the next slot comes at 1 s
    await expect(limiter.acquire(1, { maxWaitMs: 200 })).rejects.toBeInstanceOf(WaitTimeoutError);
    const tooLarge = oneASecond({ tpm: 100 });
    const tooLargeSeen = record(tooLarge, "rejected");
    await expect(tooLarge.acquire(1_000)).rejects.toBeInstanceOf(RequestTooLargeError);
    await expect(tooLarge.run(1_000, () => ({ value: 1 }))).rejects.toBeInstanceOf(RequestTooLargeError);
    expect(rejected).toMatchObject([{ reason: "timeout", waitMs: 0 }]);
    expect(tooLargeSeen).toMatchObject([
      { reason: "too_large", estimate: 1_000, waitMs: 0 },
      { reason: "too_large", estimate: 1_000, waitMs: 0 },
    ]);
    expect(held).toBe(1);
  });

  it("leaves bad input to the caller: a TypeError or RangeError is no rejection", async () => {
    const limiter = oneASecond();
    const rejected = record(limiter, "rejected");
    await expect(limiter.acquire(Number.NaN)).rejects.toBeInstanceOf(RangeError);
    await expect(limiter.acquire("1" as never)).rejects.toBeInstanceOf(TypeError);
    expect(rejected).toEqual([]);
  });
});

describe("a call's priority class and tenant", () => {
  it("are on queued, admitted, settled and rejected, from the queue and at once", async () => {
    const limiter = oneASecond({ priorities: ["interactive", "batch"], maxQueue: 2 });
    const seen: string[] = [];
    for (const name of ["queued", "admitted", "settled", "rejected"] as const) {
      limiter.on(name, ({ priority, tenant }) => seen.push(`${name} ${priority} ${tenant}`));
    }
    const first = await limiter.acquire(1, { tenant: "acme" });
    const second = limiter.run(1, () => ({ value: 2 }), { priority: "interactive", tenant: "zeta" });
    const third = limiter.acquire(1);
    await expect(limiter.acquire(1, { priority: "interactive", tenant: "acme" })).rejects.toThrow(QueueFullError);
    first.release();
    await time.at(1_000);
    await second;
    // Known at once to wait past its maxWaitMs: refused before it queues.
    await expect(limiter.acquire(1, { tenant: "late", maxWaitMs: 500 })).rejects.toThrow(WaitTimeoutError);
    await time.at(2_000);
    (await third).release();
    expect(seen).toEqual([
      "admitted batch acme", // `defaultPriority`: the last class when none is called "default"
      "queued interactive zeta",
      "queued batch undefined",
      "rejected interactive acme",
      "settled batch acme",
      "admitted interactive zeta",
      "settled interactive zeta",
      "rejected batch late",
      "admitted batch undefined",
      "settled batch undefined",
    ]);
  });

  it("are on refusals before queueing (too large, closed) and of waiters closing rejects", async () => {
    const limiter = oneASecond({ priorities: ["interactive", "default"], tpm: 1_000 });
    const rejected = record(limiter, "rejected");
    await expect(limiter.acquire(2_000, { priority: "interactive", tenant: "acme" })).rejects.toThrow(
      RequestTooLargeError,
    );
    const held = await limiter.acquire(1);
    const waiting = limiter.acquire(1, { priority: "interactive", tenant: "zeta" });
    await limiter.close();
    await expect(waiting).rejects.toThrow(LimiterClosedError);
    await expect(limiter.run(1, () => ({ value: 1 }))).rejects.toThrow(LimiterClosedError);
    held.release();
    expect(rejected.map(({ reason, priority, tenant }) => [reason, priority, tenant])).toEqual([
      ["too_large", "interactive", "acme"],
      ["closed", "interactive", "zeta"],
      ["closed", "default", undefined],
    ]);
  });
});

describe("synced and rateLimited", () => {
  it("give the parsed view, and a 429's hint", () => {
    const limiter = oneASecond({ rpm: 600, capacity: undefined, provider: "openai" });
    const synced = record(limiter, "synced");
    const rateLimited = record(limiter, "rateLimited");
    const headers = {
      "x-ratelimit-limit-requests": "600",
      "x-ratelimit-remaining-requests": "599",
      "retry-after": "2",
    };
    const view = limiter.sync(headers);
    expect(synced).toEqual([{ view, status: undefined }]);
    expect(rateLimited).toEqual([]);
    const limited = limiter.sync(headers, { status: 429 });
    expect(synced[1]).toEqual({ view: limited, status: 429 });
    expect(rateLimited).toEqual([
      { failure: expect.objectContaining({ kind: "rate", retryAfterMs: 2_000 }), retryAfterMs: 2_000, view: limited },
    ]);
  });
});

describe("drift", () => {
  const headers = (remaining: number) => ({
    "x-ratelimit-limit-requests": "100",
    "x-ratelimit-remaining-requests": String(remaining),
  });

  it("tells when headers leave less than the own count by more than the margin", () => {
    const limiter = oneASecond({ rpm: 100, capacity: undefined, provider: "openai" });
    const drift = record(limiter, "drift");
    limiter.sync(headers(95)); // 5 below a full bucket: inside 10% of 100
    expect(drift).toEqual([]);
    limiter.sync(headers(70)); // the local count now says 95
    expect(drift).toEqual([{ dimension: "rpm", reported: 70, local: 95, difference: -25, margin: 10 }]);
  });

  it("takes its margin from driftMargin", () => {
    const limiter = oneASecond({ rpm: 100, capacity: undefined, provider: "openai", driftMargin: 0.5 });
    const drift = record(limiter, "drift");
    limiter.sync(headers(60));
    expect(drift).toEqual([]);
    limiter.sync(headers(5));
    expect(drift).toMatchObject([{ reported: 5, local: 60, margin: 50 }]);
  });

  it.each([[-0.1], [Infinity], [Number.NaN]])("refuses driftMargin %s", (driftMargin) => {
    expect(() => new Limiter({ rpm: 1, driftMargin })).toThrow(RangeError);
  });

  it("refuses a driftMargin that is not a number", () => {
    expect(() => new Limiter({ rpm: 1, driftMargin: "0.1" as never })).toThrow(TypeError);
  });
});

describe("listeners", () => {
  it("are removed by the function on() returns, once, and it is disposable", async () => {
    const limiter = oneASecond({ rpm: 600, capacity: { rpm: 10 } });
    const listener = vi.fn();
    const off = limiter.on("admitted", listener);
    (await limiter.acquire(1)).release();
    off();
    off();
    (await limiter.acquire(1)).release();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(typeof (off as unknown as Record<symbol, unknown>)[Symbol.dispose]).toBe("function");
  });

  it("leave no channel behind once the last is gone, so emit points build nothing", () => {
    const limiter = oneASecond();
    const channels = (limiter as unknown as { events: { channels: Record<string, unknown> } }).events.channels;
    const offs = [limiter.on("settled", () => {}), limiter.on("settled", () => {})];
    expect(channels.settled).toBeDefined();
    offs[0]!();
    expect(channels.settled).toBeDefined();
    offs[1]!();
    expect(Object.values(channels).every((channel) => channel === undefined)).toBe(true);
  });

  it("that throw are reported through onWarning, and admission carries on", async () => {
    const onWarning = vi.fn();
    const limiter = oneASecond({ onWarning });
    const failure = new Error("listener bug");
    limiter.on("queued", () => {
      throw failure;
    });
    const after = vi.fn();
    limiter.on("queued", after);
    limiter.on("admitted", () => {
      throw failure;
    });
    const first = await limiter.acquire(1);
    const second = limiter.acquire(1);
    await time.at(1_000);
    await expect(second).resolves.toBeDefined();
    expect(after).toHaveBeenCalledTimes(1);
    expect(onWarning).toHaveBeenCalledTimes(3);
    expect(onWarning.mock.calls[0]![0]).toMatchObject({
      message: expect.stringContaining('"admitted"'),
      cause: failure,
    });
    first.release();
  });

  it("may remove themselves while the event runs, without skipping the next", async () => {
    const limiter = oneASecond();
    const order: string[] = [];
    const off = limiter.on("admitted", () => {
      order.push("first");
      off();
    });
    limiter.on("admitted", () => order.push("second"));
    (await limiter.acquire(1)).release();
    await time.at(1_000);
    (await limiter.acquire(1)).release();
    expect(order).toEqual(["first", "second", "second"]);
  });

  it("refuse an unknown event name or a listener that is not a function, with a TypeError", () => {
    const limiter = oneASecond();
    expect(() => limiter.on("admited" as never, () => {})).toThrow(TypeError);
    expect(() => limiter.on("admitted", "log" as never)).toThrow(TypeError);
  });
});
