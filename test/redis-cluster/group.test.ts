/**
 * A LimiterGroup on a real Redis Cluster (three primaries, three replicas): a
 * member's fields, the shared ones and the member's lease set carry one hash
 * tag, so the scripts that touch them all run on one node (no CROSSSLOT).
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { LimiterGroup, WaitTimeoutError } from "../../src/index.js";
import { RedisGroupStore } from "../../src/redis/index.js";
import { CLUSTER_CLIENT_NAMES, CLUSTER_CLIENTS, clusterForTests, describeCluster } from "./helpers.js";

describeCluster("a LimiterGroup on a Redis Cluster", () => {
  const cluster = clusterForTests();

  it.each(CLUSTER_CLIENT_NAMES)("%s: one script takes a member's budgets, leases and the shared ones", async (name) => {
    const key = `cluster:${randomUUID()}`;
    const connections = await Promise.all([0, 1].map(() => CLUSTER_CLIENTS[name](cluster())));
    const warnings: Error[] = [];
    const [one, two] = connections.map(
      ({ client }) =>
        new LimiterGroup({
          models: { a: { tpd: 3_000, concurrency: 2 }, b: { tpd: 3_000 } },
          shared: { tpd: 5_000 },
          initial: "full",
          onWarning: (warning) => warnings.push(warning),
          store: new RedisGroupStore({ client, key }),
        }),
    ) as [LimiterGroup, LimiterGroup];
    try {
      // Each process in turn: a's own budget binds in both, then the shared one for b.
      const steps = [
        [one, "a", 3_000, true],
        [two, "a", 1, false],
        [two, "b", 2_000, true],
        [one, "b", 1, false],
      ] as const;
      for (const [group, member, cost, fits] of steps) {
        const acquired = group.for(member).acquire(cost, { maxWaitMs: 0 });
        if (fits) (await acquired).release();
        else await expect(acquired).rejects.toBeInstanceOf(WaitTimeoutError);
      }
      expect(warnings).toEqual([]);
    } finally {
      await Promise.all([one.close(), two.close()]);
      connections.forEach((connection) => connection.close());
    }
  });
});
