/**
 * What the Cluster tests share: the two cluster clients, connected as a
 * service would connect them, and a workload of limiters on one key against
 * the simulated provider.
 */
import { randomUUID } from "node:crypto";
import { Cluster } from "ioredis";
import { createCluster } from "redis";
import { afterAll, beforeAll, describe } from "vitest";
import { Limiter } from "../../src/index.js";
import { RedisStore, type RedisClient } from "../../src/redis/index.js";
import type { StoreFailurePolicy } from "../../src/store/shared-store.js";
import { createProvider, type SimulatedProvider } from "../../src/testing/index.js";
import { clusterUnavailable, startRedisCluster, type ClusterOptions, type RedisCluster } from "./cluster.js";

const missing = clusterUnavailable();
const hint = "install redis-server (apt-get install redis-server, which brings redis-cli)";
// In CI the Cluster tests must run: a missing binary fails the suite instead of skipping it.
if (missing !== undefined && process.env.CI === "true")
  throw new Error(`The Redis Cluster tests need redis-server and redis-cli in CI: ${missing}; ${hint}`);
if (missing !== undefined) console.warn(`\n[llm-limiter] ${missing}: the Redis Cluster tests are SKIPPED (${hint}).\n`);

/** `describe`, skipped (visibly) when redis-server or redis-cli is missing outside CI. */
export const describeCluster: ReturnType<typeof describe.skipIf> = describe.skipIf(missing !== undefined);

/** A cluster client as `RedisStore` takes it, and how to close it. */
export interface ClusterConnection {
  readonly client: RedisClient;
  close(): void;
}

/** The cluster clients under test, each connected to every node of `cluster`. */
export const CLUSTER_CLIENTS = {
  "ioredis Cluster": async (cluster: RedisCluster): Promise<ClusterConnection> => {
    const client = new Cluster([...cluster.startupNodes], {
      // As the store's docs advise: a command in flight when a connection drops is not sent again.
      redisOptions: { autoResendUnfulfilledCommands: false },
    });
    client.on("error", () => {});
    await new Promise((resolve) => client.once("ready", resolve));
    return { client, close: () => client.disconnect() };
  },
  "node-redis createCluster": async (cluster: RedisCluster): Promise<ClusterConnection> => {
    const client = createCluster({
      rootNodes: cluster.startupNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    });
    client.on("error", () => {});
    await client.connect();
    return { client, close: () => client.destroy() };
  },
} satisfies Record<string, (cluster: RedisCluster) => Promise<ClusterConnection>>;

export type ClusterClientName = keyof typeof CLUSTER_CLIENTS;
export const CLUSTER_CLIENT_NAMES = Object.keys(CLUSTER_CLIENTS) as ClusterClientName[];

/** The provider's quota, which every limiter is configured with. */
export interface Quota {
  readonly rpm: number;
  readonly tpm: number;
}

/** Every call reserves its prompt plus `max_tokens`, and settles at what it used. */
export const CALL = { prompt: 100, maxTokens: 200 } as const;

/** One call's outcome, seen from the caller. */
export interface CallOutcome {
  readonly status: 200 | 429;
  /** Which of the limiters admitted it. */
  readonly limiter: number;
  /** `performance.now()` when the limiter admitted it. */
  readonly admittedAt: number;
}

/** A booking call Redis answered: when, and how many requests it took (admitted now or booked for later). */
export interface BookingReply {
  readonly at: number;
  readonly taken: number;
}

/** Limiters on one key, each on a cluster client of its own (as separate processes would be). */
export interface Limiters {
  readonly limiters: readonly Limiter[];
  /** Warnings the limiters reported (a store outage, once per limiter and outage). */
  readonly warnings: readonly Error[];
  /** Every booking answered, in the order the answers came (`performance.now()`). */
  readonly bookings: readonly BookingReply[];
  close(): Promise<void>;
}

/** `store`, recording each booking's answer in `bookings`. */
function recorded(store: RedisStore, bookings: BookingReply[]): RedisStore {
  const book = store.book.bind(store);
  store.book = async (layout, requests) => {
    const booking = await book(layout, requests);
    bookings.push({ at: performance.now(), taken: booking.admitted + (booking.booked ? 1 : 0) });
    return booking;
  };
  return store;
}

/**
 * The limiters' default `arrivalDelayMs`: the start-up burst, drawn from a full
 * bucket, holds its refill back this long (see "A burst at start-up" in docs/redis.md).
 */
const ARRIVAL_DELAY_MS = 500;

export async function limitersOn(
  cluster: RedisCluster,
  clientName: ClusterClientName,
  key: string,
  options: { readonly count: number; readonly quota: Quota; readonly onError?: StoreFailurePolicy },
): Promise<Limiters> {
  const warnings: Error[] = [];
  const bookings: BookingReply[] = [];
  const connections = await Promise.all(
    Array.from({ length: options.count }, () => CLUSTER_CLIENTS[clientName](cluster)),
  );
  const limiters = connections.map(
    ({ client }) =>
      new Limiter({
        ...options.quota,
        store: recorded(new RedisStore({ client, key, onError: options.onError ?? "fail-closed" }), bookings),
        onWarning: (warning) => warnings.push(warning),
      }),
  );
  return {
    limiters,
    warnings,
    bookings,
    async close() {
      await Promise.all(limiters.map((l) => l.close()));
      for (const c of connections) c.close();
    },
  };
}

/**
 * One call through `limiters[index]` to `provider`: it syncs the response's
 * headers and settles its usage; a 429 is recorded and ends the call (no
 * retry: each one is a call the limiters over-admitted).
 */
export function callThrough(
  limiters: readonly Limiter[],
  index: number,
  provider: SimulatedProvider,
): Promise<CallOutcome> {
  return limiters[index]!.run(CALL.prompt + CALL.maxTokens, async (reservation) => {
    const admittedAt = performance.now();
    const result = await provider.call(CALL);
    reservation.sync(result.headers, { status: result.status, body: result.body });
    const outcome: CallOutcome = { status: result.status, limiter: index, admittedAt };
    if (result.status !== 200) return { value: outcome };
    return { value: outcome, used: result.usage.promptTokens + result.usage.completionTokens };
  });
}

/** `calls` calls at once, spread over the limiters in turn (see {@link callThrough}). */
export function fire(limiters: readonly Limiter[], provider: SimulatedProvider, calls: number): Promise<CallOutcome[]> {
  return Promise.all(Array.from({ length: calls }, (_, i) => callThrough(limiters, i % limiters.length, provider)));
}

/**
 * Runs the code paths of a test's first round trips once before it (a
 * limiter on `clientName`, a throwaway key, the simulator): on a loaded
 * machine, cold code can stall a burst's first calls for longer than the
 * store's timeout.
 */
export async function warmUp(cluster: RedisCluster, clientName: ClusterClientName): Promise<void> {
  const quota = { rpm: 10_000, tpm: 10_000_000 };
  const { limiters, close } = await limitersOn(cluster, clientName, `cluster:warm-up:${randomUUID()}`, {
    count: 1,
    quota,
  });
  try {
    const provider = createProvider(quota);
    for (let round = 0; round < 3; round++) await fire(limiters, provider, 50);
  } finally {
    await close();
  }
}

/**
 * A cluster for the tests of the current `describe`: started (and warmed up
 * with both clients) before them, stopped after. Returns its getter.
 */
export function clusterForTests(options?: ClusterOptions): () => RedisCluster {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster(options);
    for (const name of CLUSTER_CLIENT_NAMES) await warmUp(cluster, name);
  });
  afterAll(() => cluster?.stop());
  return () => cluster!;
}

/**
 * The earliest the last of `calls` can be admitted from the limiters' full bucket at start: (N − C) / r, in ms,
 * after the hold of the burst's arrival delay.
 */
export function boundMs(quota: Quota, calls: number): number {
  return calls <= quota.rpm ? 0 : ARRIVAL_DELAY_MS + ((calls - quota.rpm) * 60_000) / quota.rpm;
}

/** Resolves with `promise`, or rejects after `ms` naming `what`: a hang fails the test with a reason. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
