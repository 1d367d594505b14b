/**
 * Store keys and Cluster hash tags: the store's Redis keys are `{<key>}:…`, and Redis hashes only the
 * tag between the first `{` and the first `}` after it. A key with braces of its own still puts every
 * key of a store, and of a group's members, in one slot; one that starts with `}` would make the tag
 * empty, so every key hashed whole, to slots apart (CROSSSLOT): it is refused when the store is made.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { Limiter, LimiterGroup } from "../../src/index.js";
import { RedisGroupStore, RedisStore } from "../../src/redis/index.js";
import { CLUSTER_CLIENT_NAMES, CLUSTER_CLIENTS, clusterForTests, describeCluster } from "./helpers.js";

describeCluster("store keys on a Redis Cluster", () => {
  const cluster = clusterForTests();

  it.each(CLUSTER_CLIENT_NAMES)("%s: a key that starts with } is refused at construction", async (name) => {
    const { client, close } = await CLUSTER_CLIENTS[name](cluster());
    try {
      for (const key of ["}", "}a", "}{a}"]) {
        expect(() => new RedisStore({ client, key })).toThrow(TypeError);
        expect(() => new RedisStore({ client, key })).toThrow(/must not start with "}".*CROSSSLOT/);
        expect(() => new RedisGroupStore({ client, key })).toThrow(TypeError);
      }
    } finally {
      close();
    }
  });

  it.each(CLUSTER_CLIENT_NAMES)(
    "%s: keys with braces of their own book, lease and settle on one slot",
    async (name) => {
      const { client, close } = await CLUSTER_CLIENTS[name](cluster());
      const warnings: Error[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning);
      try {
        for (const brace of ["a}b", "{a", "a{b}c", "{}", "a}"]) {
          const key = `${brace}:${randomUUID()}`;
          const limiter = new Limiter({ rpm: 100, concurrency: 2, store: new RedisStore({ client, key }), onWarning });
          const reservation = await limiter.acquire(1, { maxWaitMs: 1_000 });
          reservation.settle(1);
          await limiter.close();
          const group = new LimiterGroup({
            models: { "m}1": { rpm: 100, concurrency: 1 }, "{m2": { rpm: 100 } },
            shared: { tpd: 10_000 },
            store: new RedisGroupStore({ client, key }),
            onWarning,
          });
          for (const member of ["m}1", "{m2"]) (await group.for(member).acquire(1, { maxWaitMs: 1_000 })).release();
          await group.close();
        }
        expect(warnings).toEqual([]);
      } finally {
        close();
      }
    },
  );
});
