/**
 * A real Redis Cluster (three primaries, three replicas, started here):
 * several limiters on one key, each on a cluster client of its own, share the
 * quota of one simulated provider that meters it exactly. With an ioredis
 * `Cluster` and a node-redis `createCluster`, as `RedisStore` takes them: no
 * 429s, and the quota is used (the makespan sits at its bound).
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import {
  boundMs,
  CLUSTER_CLIENT_NAMES,
  clusterForTests,
  describeCluster,
  fire,
  limitersOn,
  within,
  type Quota,
} from "./helpers.js";

/**
 * A burst of 300: its calls' settles and header syncs (about four scripts a call) stay within what
 * a loaded 2-core runner answers inside the store's 250 ms timeout. Twice that in one process has
 * timed out there, single server or Cluster alike.
 */
const QUOTA: Quota = { rpm: 300, tpm: 300_000 };
const LIMITERS = 3;
/** The burst of 300, then 15 more at 5/s after the burst's hold of 500 ms: the last is due 3.5 s after the start. */
const CALLS = 315;

describeCluster("limiters on one key of a Redis Cluster", () => {
  const cluster = clusterForTests();

  it.each(CLUSTER_CLIENT_NAMES)("%s: no 429s, makespan at the bound", { timeout: 30_000 }, async (clientName) => {
    const key = `cluster:${randomUUID()}`;
    const { limiters, warnings, close } = await limitersOn(cluster(), clientName, key, {
      count: LIMITERS,
      quota: QUOTA,
    });
    try {
      // Answers of 1 to 200 tokens take 54 to 850 ms: the burst's calls complete spread out, as real ones do.
      const provider = createProvider({ ...QUOTA, latencyMs: (call) => 50 + 4 * call.actual, seed: 3 });
      const start = performance.now();
      const outcomes = await within(20_000, "the calls", fire(limiters, provider, CALLS));
      const makespan = Math.max(...outcomes.map((o) => o.admittedAt)) - start;
      const bound = boundMs(QUOTA, CALLS);
      console.log(
        `[cluster] ${clientName}: ${LIMITERS} limiters, ${CALLS} calls: ${provider.stats().rejected} 429s, ` +
          `makespan ${(makespan / 1_000).toFixed(2)} s against a bound of ${(bound / 1_000).toFixed(2)} s`,
      );
      expect(provider.stats().rejected).toBe(0);
      expect(outcomes.every((o) => o.status === 200)).toBe(true);
      expect(warnings).toEqual([]);
      // Sooner would have over-admitted; much later leaves quota unused.
      expect(makespan).toBeGreaterThan(bound - 100);
      expect(makespan).toBeLessThan(bound * 1.1 + 300);
    } finally {
      await close();
    }
  });
});
