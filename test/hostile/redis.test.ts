/**
 * A Redis hash poisoned field by field: Lua's `tonumber` reads "nan" and "inf", and a field holding text
 * once read as missing, which started the bucket afresh. Each poisoned field, under both failure policies
 * and both clients: the call that meets it rejects with a final `StoreReplyError` (no outage: nothing is
 * admitted unmetered, nothing waits for a recovery), a warning says so, the same script resets the bucket
 * to empty and the next call is admitted from its refill; no script writes back anything but finite numbers.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it, vi } from "vitest";
import { Limiter, WaitTimeoutError } from "../../src/index.js";
import { RedisStore, StoreReplyError } from "../../src/redis/index.js";
import type { StoreFailurePolicy } from "../../src/store/shared-store.js";
import { bookOne } from "../redis/book-one.js";
import { fakeClient, scriptOf } from "../redis/fake-client.js";
import {
  ADAPTERS,
  ADAPTER_NAMES,
  describeRedis,
  rawRedis,
  redisUrl,
  storeFactory,
  type Connection,
} from "../redis/helpers.js";
import { dim, layout } from "../redis/layouts.js";

const POLICIES: StoreFailurePolicy[] = ["fail-open", "fail-closed"];
/** Every field the layout keeps for a dimension (`rpm:…`), and the two of the whole hash. */
const FIELDS = ["rpm:l", "rpm:t", "rpm:a", "rpm:p", "rpm:w", "rpm:u", "rpm:W", "rpm:U", "x", "v"];
const POISONS = ["nan", "inf", "-inf", "1e999", "abc", ""];
/** 10 a second: a bucket reset to empty admits one call per 100 ms of the test. */
const RPM = 600;
const CALLS = 100;
/** The level the hash holds before it is poisoned: a bucket the repair did not empty would admit this many. */
const LEVEL = 50;

/** Every value of the hash is a finite number, but the layout version. */
function expectFinite(hash: Record<string, string>): void {
  for (const [field, value] of Object.entries(hash)) {
    if (field === "v") expect(value).toBe("1");
    else
      expect({ field, value: Number.isFinite(Number(value)) && value.trim() !== "" }).toEqual({ field, value: true });
  }
}

describeRedis.each(ADAPTER_NAMES)("a poisoned bucket hash (%s)", (adapter) => {
  const raw = rawRedis();
  const connections: Promise<Connection>[] = [];
  const connection = (): Promise<Connection> => {
    const made = ADAPTERS[adapter](redisUrl!);
    connections.push(made);
    return made;
  };
  afterAll(async () => {
    for (const made of connections) await (await made).close();
  });
  const shared = connection();

  /** A layout-1 hash for `rpm`, every field present and sound, the level at {@link LEVEL}. */
  async function soundHash(key: string): Promise<void> {
    const [seconds, micros] = await raw.time();
    const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
    await raw.hset(key, {
      v: "1",
      x: String(now + 600_000),
      "rpm:l": String(LEVEL),
      "rpm:t": String(now),
      "rpm:a": "1000",
      "rpm:p": "0",
      "rpm:w": "0",
      "rpm:u": "0",
      "rpm:W": "0",
      "rpm:U": "0",
    });
    await raw.pexpire(key, 600_000);
  }

  describe.each(POLICIES)("%s", (onError) => {
    it.each(FIELDS.flatMap((field) => POISONS.map((poison) => [field, poison] as const)))(
      "%s = %j: a final StoreReplyError, a warning, no unmetered admission, then a repaired bucket",
      async (field, poison) => {
        const key = `poisoned:${randomUUID()}`;
        const hash = `{${key}}:b`;
        await soundHash(hash);
        await raw.hset(hash, field, poison);
        const onWarning = vi.fn();
        const { client } = await shared;
        const limiter = new Limiter({ rpm: RPM, store: new RedisStore({ client, key, onError }), onWarning });
        try {
          const start = performance.now();
          const outcomes = await Promise.all(
            Array.from({ length: CALLS }, () =>
              limiter.acquire(1, { maxWaitMs: 0 }).then(
                (reservation) => {
                  reservation.release();
                  return "admitted" as const;
                },
                (error: unknown) => error,
              ),
            ),
          );
          const elapsed = performance.now() - start;
          const admitted = outcomes.filter((o) => o === "admitted").length;
          const refused = outcomes.filter((o) => o instanceof StoreReplyError);
          // The calls the poisoned read met reject, final; the others wait for the emptied bucket's refill.
          expect(refused.length).toBeGreaterThanOrEqual(1);
          for (const error of refused)
            expect(error).toMatchObject({ replyCode: "CORRUPT", keys: [hash, `{${key}}:c`, `{${key}}:d`] });
          for (const o of outcomes)
            if (o !== "admitted" && !(o instanceof StoreReplyError)) expect(o).toBeInstanceOf(WaitTimeoutError);
          // Reset to empty, not to full: at most what the refill brought meanwhile (10 a second).
          expect(admitted).toBeLessThanOrEqual(1 + Math.ceil((elapsed * RPM) / 60_000));
          // One warning, the repair's; none of an outage.
          expect(onWarning).toHaveBeenCalled();
          for (const [warning] of onWarning.mock.calls)
            expect(warning).toMatchObject({ name: "StoreReplyError", replyCode: "CORRUPT" });
          expect((onWarning.mock.calls[0]![0] as Error).message).toContain(`field ${field} `);
          expectFinite(await raw.hgetall(hash));
          // The bucket is sound again: the next call is admitted from its refill.
          const reservation = await limiter.acquire(1, { maxWaitMs: 2_000 });
          reservation.release();
          expect(onWarning.mock.calls.length).toBeLessThanOrEqual(refused.length);
          expectFinite(await raw.hgetall(hash));
        } finally {
          limiter.close();
        }
      },
    );
  });
});

describeRedis.each(ADAPTER_NAMES)("a poisoned field met by each script (%s)", (adapter) => {
  const raw = rawRedis();
  const store = storeFactory(adapter);
  const rpm = layout([dim("rpm", RPM)]);

  /** A store on a fresh key whose hash has been written once (a booking), then `field` poisoned. */
  async function poisoned(field: string, poison = "nan"): Promise<{ s: RedisStore; hash: string }> {
    const s = await store();
    await bookOne(s, rpm, [1]);
    const hash = s["keys"][0];
    await raw.hset(hash, field, poison);
    return { s, hash };
  }

  const corrupt = { name: "StoreReplyError", replyCode: "CORRUPT" };
  const calls: [string, (s: RedisStore) => Promise<unknown>][] = [
    ["book", (s) => bookOne(s, rpm, [1])],
    ["dueIn", (s) => s.dueIn(rpm, [1])],
    ["adjust", (s) => s.adjust(rpm, [5])],
    ["lower", (s) => s.lower(rpm, 0, 3, undefined)],
    ["resync", (s) => s.resync(rpm, 0, { remaining: 3, brought: 3, mark: undefined })],
  ];

  it.each(calls)("%s: rejects CORRUPT and leaves the bucket empty, every value finite", async (_, call) => {
    const { s, hash } = await poisoned("rpm:l");
    await expect(call(s)).rejects.toMatchObject(corrupt);
    expectFinite(await raw.hgetall(hash));
    expect(Number(await raw.hget(hash, "rpm:l"))).toBe(0);
    // Nothing booked, nothing admitted: the level, refilled since, is what 10 a second brought.
    const { levels } = await bookOne(s, rpm, [0]);
    expect(levels[0]).toBeLessThan(5);
  });

  it("book: a refill time further ahead than any key lives is corrupt too (it would hold refill back for good)", async () => {
    const { s, hash } = await poisoned("rpm:t", "1e18");
    await expect(bookOne(s, rpm, [1])).rejects.toMatchObject(corrupt);
    expect(Number(await raw.hget(hash, "rpm:t"))).toBeLessThan(Date.now() + 60_000);
    expect(Number(await raw.hget(hash, "rpm:l"))).toBe(0);
  });

  it("lease set: a lease ending later than any leaseMs allows (inf) frees its slot once every slot is held", async () => {
    const s = await store();
    const one = layout([dim("rpm", RPM)], { concurrency: 2 });
    const leases = s["keys"][1];
    await raw.zadd(leases, "inf", "ghost", "1e300", "ghost-2");
    const taken = await s.lease(one);
    expect(taken.lease).toBeDefined();
    expect(await raw.zscore(leases, "ghost")).toBeNull();
    expect(await raw.zscore(leases, "ghost-2")).toBeNull();
    expect(await bookOne(s, one, [1])).toMatchObject({ booked: true, waitMs: 0 });
    // Both slots held by live leases now: the next waits for the earlier of them, as always.
    expect(await s.lease(one)).toMatchObject({ lease: undefined });
  });

  it("pause: a corrupt pause is overwritten by the one asked for, and the call rejects CORRUPT", async () => {
    const { s, hash } = await poisoned("rpm:p", "inf");
    await expect(s.pause(rpm, undefined, 5_000)).rejects.toMatchObject(corrupt);
    expectFinite(await raw.hgetall(hash));
    expect(await bookOne(s, rpm, [1])).toMatchObject({ dimension: "rpm" });
  });

  it("lower: a corrupt own count (rpm:h) resets the bucket, rejecting CORRUPT", async () => {
    const { s, hash } = await poisoned("rpm:h", "-inf");
    await expect(s.resync(rpm, 0, { remaining: 3, brought: 3, mark: undefined })).rejects.toMatchObject(corrupt);
    expect(await raw.hget(hash, "rpm:h")).toBe("0");
    expectFinite(await raw.hgetall(hash));
    await s.resync(rpm, 0, { remaining: 3, brought: 3, mark: undefined });
  });

  // B: a time a minute ahead, when the field's process books next; N: now, when it last asked.
  it.each(["nan nan", "1 inf", "abc", "", "1 B nan 7", "inf B", "1 B N x", "1e999 B"])(
    "book: a corrupt demand field %j goes as an expired one does; the booking stands",
    async (entry) => {
      const s = await store();
      await bookOne(s, rpm, [1]);
      const demand = s["bookKeys"][2];
      const [seconds, micros] = await raw.time();
      const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
      await raw.hset(
        demand,
        "corrupt",
        entry.replace("B", String(now + 60_000)).replace("N", String(now)),
        "sound",
        `5 ${now + 60_000}`,
      );
      await raw.pexpire(demand, 60_000);
      // Two requests: the booking reads the demand hash.
      const booking = await s.book(rpm, [[1], [1]], true);
      expect(booking.admitted).toBe(2);
      const fields = await raw.hgetall(demand);
      expect(fields.corrupt).toBeUndefined();
      for (const value of Object.values(fields))
        for (const token of value.split(" ")) expect(Number.isFinite(Number(token)) || token === "-").toBe(true);
    },
  );

  it("pause and adjust of amounts no bucket holds: no failed PEXPIRE after the write, a TTL Redis took", async () => {
    const s = await store();
    await bookOne(s, rpm, [1]);
    const hash = s["keys"][0];
    await s.pause(rpm, undefined, 1e20);
    expect(await raw.pttl(hash)).toBeGreaterThan(0);
    expectFinite(await raw.hgetall(hash));
    await s.adjust(rpm, [-1e300]);
    expectFinite(await raw.hgetall(hash));
    // A level past what any bucket holds reads as corrupt next: repaired, not a debt for good.
    await expect(bookOne(s, rpm, [1])).rejects.toMatchObject(corrupt);
    expect(Number(await raw.hget(hash, "rpm:l"))).toBe(0);
    expect(await raw.pttl(hash)).toBeGreaterThan(0);
  });
});

describe("a reply number that is not finite (a fake client, no server)", () => {
  it.each(POLICIES)("%s: a final StoreReplyError (MALFORMED), not an outage: nothing admitted", async (onError) => {
    const client = fakeClient(async (call) =>
      scriptOf(call) === "book" ? ["1", "0", "0", "", "0", "nan", "0"] : null,
    );
    const onWarning = vi.fn();
    const limiter = new Limiter({ rpm: 10, store: new RedisStore({ client, key: "k", onError }), onWarning });
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => limiter.acquire(1).catch((e: unknown) => e)));
    for (const outcome of outcomes) expect(outcome).toMatchObject({ name: "StoreReplyError", replyCode: "MALFORMED" });
    expect(onWarning).not.toHaveBeenCalled();
    await limiter.close();
  });
});

describeRedis.each(ADAPTER_NAMES)(
  "a poisoned field met while a booking for later asks when it is due (%s)",
  (adapter) => {
    const raw = rawRedis();
    const store = storeFactory(adapter);

    it("warns of the repair (a final CORRUPT), and the waiter is still admitted", async () => {
      const s = await store();
      const onWarning = vi.fn();
      // One request a second from empty: the call is booked for about a second later and polls every 50 ms.
      const limiter = new Limiter({ rpm: 60, initial: "empty", store: s, onWarning, arrivalDelayMs: 0 });
      try {
        const later = limiter.acquire(1, { maxWaitMs: 30_000 });
        await vi.waitFor(async () => expect(Number(await raw.hget(s["keys"][0], "rpm:l"))).toBeLessThan(0), {
          timeout: 5_000,
          interval: 5,
        });
        await raw.hset(s["keys"][0], "rpm:l", "nan");
        await vi.waitFor(() => expect(onWarning).toHaveBeenCalled(), { timeout: 10_000, interval: 10 });
        for (const [warning] of onWarning.mock.calls)
          expect(warning).toMatchObject({ name: "StoreReplyError", replyCode: "CORRUPT" });
        // The booking it held was taken before the repair emptied the bucket: its waiter still comes in.
        (await later).release();
        expectFinite(await raw.hgetall(s["keys"][0]));
      } finally {
        await limiter.close();
      }
    });
  },
);
