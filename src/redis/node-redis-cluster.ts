/**
 * node-redis v5's cluster client learns a new slot map only from a MOVED
 * reply. When the primary holding a store's slot dies, no live node is asked
 * for that slot, so none answers MOVED: the client reconnects to the dead node
 * forever, the slot's commands wait in that connection's offline queue, and
 * the store stays unavailable long after a replica has taken over. While one
 * of its primaries' connections is down, this has the cluster read its slot
 * map again every {@link REFRESH_MS}, through its own rediscovery, until every
 * primary it lists is connected; the rediscovery drops the dead node's
 * connection, which rejects what waited in its queue.
 */

/** How often the slot map is read again while a primary's connection is down. */
const REFRESH_MS = 200;

interface ClusterNode {
  readonly client?: { readonly isReady?: boolean };
}

/** The parts of a node-redis v5 `createCluster` client this uses; `_slots` is internal to node-redis. */
interface NodeRedisCluster {
  on(event: "node-reconnecting", listener: () => void): unknown;
  readonly isOpen?: boolean;
  readonly masters: readonly ClusterNode[];
  readonly _slots: { rediscover(startWith: object): Promise<unknown> };
}

function isNodeRedisCluster(client: object): client is NodeRedisCluster {
  const probe = client as Partial<Record<keyof NodeRedisCluster, unknown>>;
  const slots = probe._slots as { rediscover?: unknown } | undefined;
  return typeof probe.on === "function" && Array.isArray(probe.masters) && typeof slots?.rediscover === "function";
}

/** Clusters already followed: one listener per client, however many stores share it. */
const followed = new WeakSet<object>();

/**
 * Makes a node-redis cluster client follow a failover (see the module's
 * comment). Anything else, including a node-redis version without the
 * internals used, is left as it is.
 */
export function followFailovers(client: object): void {
  if (!isNodeRedisCluster(client) || followed.has(client)) return;
  followed.add(client);
  let timer: ReturnType<typeof setInterval> | undefined;
  const refresh = (): void => {
    const down = client.masters.some((node) => node.client?.isReady === false);
    if (!down || client.isOpen === false) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    // Read from a node that answers; node-redis falls back to the root nodes when it does not.
    const live = client.masters.find((node) => node.client?.isReady === true)?.client;
    if (live) client._slots.rediscover(live).catch(() => {});
  };
  client.on("node-reconnecting", () => {
    if (timer !== undefined) return;
    timer = setInterval(refresh, REFRESH_MS);
    // Only a cluster in use needs it; it never keeps a process alive.
    timer.unref?.();
  });
}
