/**
 * A node-redis cluster client given to the store reads its slot map again
 * while a primary's connection is down (no server: a stand-in with the
 * client's shape; failover.test.ts runs the real thing).
 */
import { EventEmitter } from "node:events";
import { createCluster } from "redis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RedisStore } from "../../src/redis/index.js";

afterEach(() => {
  vi.useRealTimers();
});

/** node-redis v5's cluster, as far as the store looks: its events, its primaries, its rediscovery. */
function standIn() {
  const cluster = Object.assign(new EventEmitter(), {
    isOpen: true,
    masters: [{ client: { isReady: true } }, { client: { isReady: true } }],
    _slots: { rediscover: vi.fn(async (_startWith: object) => {}) },
    evalSha: vi.fn(async () => null),
    eval: vi.fn(async () => null),
  });
  return cluster;
}

describe("a node-redis cluster client", () => {
  it("is asked to rediscover its slots while a primary is down, from a primary that is up", () => {
    vi.useFakeTimers();
    const cluster = standIn();
    new RedisStore({ client: cluster, key: "k" });
    cluster.masters[0]!.client.isReady = false;
    cluster.emit("node-reconnecting", { host: "127.0.0.1", port: 1 });
    vi.advanceTimersByTime(1_000);
    expect(cluster._slots.rediscover.mock.calls.length).toBeGreaterThanOrEqual(4);
    expect(cluster._slots.rediscover.mock.calls[0]![0]).toBe(cluster.masters[1]!.client);
  });

  it("stops once every primary is up again, or the cluster is closed", () => {
    vi.useFakeTimers();
    const cluster = standIn();
    new RedisStore({ client: cluster, key: "k" });
    cluster.masters[0]!.client.isReady = false;
    cluster.emit("node-reconnecting", {});
    vi.advanceTimersByTime(500);
    const asked = cluster._slots.rediscover.mock.calls.length;
    // The rediscovery found the new primary: the dead one is gone from the map.
    cluster.masters = [cluster.masters[1]!];
    vi.advanceTimersByTime(2_000);
    expect(cluster._slots.rediscover.mock.calls.length).toBe(asked);
    expect(vi.getTimerCount()).toBe(0);

    cluster.masters = [{ client: { isReady: false } }, { client: { isReady: true } }];
    cluster.emit("node-reconnecting", {});
    cluster.isOpen = false;
    vi.advanceTimersByTime(2_000);
    expect(cluster._slots.rediscover.mock.calls.length).toBe(asked);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("is followed once, however many stores share it", () => {
    const cluster = standIn();
    for (let i = 0; i < 20; i++) new RedisStore({ client: cluster, key: `k${i}` });
    expect(cluster.listenerCount("node-reconnecting")).toBe(1);
  });

  it("a real createCluster client has what this relies on", () => {
    const cluster = createCluster({ rootNodes: [{ url: "redis://127.0.0.1:1" }] });
    new RedisStore({ client: cluster, key: "k" });
    expect(cluster.listenerCount("node-reconnecting")).toBe(1);
    expect(typeof cluster._slots.rediscover).toBe("function");
    expect(Array.isArray(cluster.masters)).toBe(true);
  });
});
