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
import { ADAPTERS, ADAPTER_NAMES, describeRedis, rawRedis, redisUrl, type Connection } from "../redis/helpers.js";

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
