/**
 * Limiters on one key, each with a connection of its own (as processes have),
 * queue 150 calls each at the same moment. Each booking call's reply tells the
 * key's count of requests before it (the marks), so the calls, and what each
 * took, are put in the order Redis ran them: with equal demand, none runs
 * ahead of another by more than a batch, even one whose round trips take far
 * less time (before the store counted demand: gaps of 30 to 45 under load, and
 * several batches with one slow connection; 121 before batches were capped).
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore, type RedisScriptClient } from "../../src/redis/index.js";
import { book } from "../../src/redis/scripts/book.js";
import { ADAPTERS, describeRedis, redisUrl, sleep } from "./helpers.js";

const CALLS_EACH = 150;
// 120 at once, then 120/s: past the burst, so both the burst and the rate are shared (about 2 s in all).
const LIMIT = 120;
// The most one booking call takes of a bucket: an eighth of its capacity.
const BATCH = LIMIT / 8;

/** What one booking call of process `p` took: `taken` requests after the key's first `before`. */
interface Take {
  readonly p: number;
  readonly before: number;
  readonly taken: number;
}

/** `client`, recording each booking reply of process `p` into `takes`, and handing it on `lagMs` late. */
function recording(client: RedisScriptClient, p: number, takes: Take[], lagMs: number): RedisScriptClient {
  const record = async (reply: unknown): Promise<unknown> => {
    // Reply: admitted, booked, waitMs, binding, then the requests' total before the batch (see the script).
    const [admitted, booked, , , before] = reply as [number, number, unknown, string, number | string];
    takes.push({ p, before: Number(before), taken: admitted + booked });
    if (lagMs > 0) await sleep(lagMs);
    return reply;
  };
  return {
    evalsha: (sha1, keys, args) => {
      const sent = client.evalsha(sha1, keys, args);
      return sha1 === book.sha1 ? sent.then(record) : sent;
    },
    eval: (script, keys, args) => {
      const sent = client.eval(script, keys, args);
      return script === book.source ? sent.then(record) : sent;
    },
  };
}

/** The widest gap between the processes' counts, as Redis took them. */
function widestGap(takes: readonly Take[], processes: number): number {
  const counts = new Array<number>(processes).fill(0);
  let widest = 0;
  for (const { p, taken } of [...takes].sort((a, b) => a.before - b.before)) {
    counts[p]! += taken;
    widest = Math.max(widest, Math.max(...counts) - Math.min(...counts));
  }
  return widest;
}

/** One limiter per entry of \`lagsMs\` (its booking replies that late) queue their calls at once: the widest gap. */
async function served(lagsMs: readonly number[]): Promise<number> {
  const key = `fair:${randomUUID()}`;
  const takes: Take[] = [];
  const connections = await Promise.all(lagsMs.map(() => ADAPTERS.ioredis(redisUrl!)));
  const limiters = connections.map(
    ({ client }, p) =>
      new Limiter({
        limits: { requests: { unit: "requests", limit: LIMIT, windowMs: 1_000 } },
        store: new RedisStore({ client: recording(client, p, takes, lagsMs[p]!), key }),
      }),
  );
  try {
    const start = performance.now();
    const makespans = await Promise.all(
      limiters.map(async (limiter) => {
        const calls = Array.from({ length: CALLS_EACH }, () => limiter.acquire(1).then((r) => r.release()));
        await Promise.all(calls);
        return Math.round(performance.now() - start);
      }),
    );
    const widest = widestGap(takes, lagsMs.length);
    console.info(`fairness (lags ${lagsMs.join("/")} ms): widest gap ${widest}, makespans ${makespans.join(" / ")} ms`);
    expect(takes.reduce((sum, t) => sum + t.taken, 0)).toBe(lagsMs.length * CALLS_EACH);
    return widest;
  } finally {
    await Promise.all(limiters.map((l) => l.close()));
    await Promise.all(connections.map((c) => c.close()));
  }
}

describeRedis("processes on one key with equal demand", () => {
  it("are served in step: two processes' counts never differ by more than a batch", { timeout: 20_000 }, async () => {
    expect(await served([0, 0])).toBeLessThanOrEqual(BATCH);
  });

  it("stay in step when one's round trips take 10 ms longer than the others'", { timeout: 20_000 }, async () => {
    expect(await served([0, 10, 0])).toBeLessThanOrEqual(BATCH);
  });
});
