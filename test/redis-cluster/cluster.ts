/**
 * A throwaway Redis Cluster owned by the tests: six `redis-server
 * --cluster-enabled yes` processes on free ports (three primaries, one replica
 * each), joined with `redis-cli --cluster create`, persistence off, in a temp
 * dir removed on `stop()`. A primary can be SIGKILLed to make its replica take
 * over.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { delay } from "../../src/testing/delay.js";

const SERVER = "redis-server";
const CLI = "redis-cli";
const HOST = "127.0.0.1";
const NODES = 6;
const execFileAsync = promisify(execFile);

/** What is missing to start a cluster here (`undefined`: nothing). */
export function clusterUnavailable(): string | undefined {
  const missing = [SERVER, CLI].filter((bin) => spawnSync(bin, ["--version"], { stdio: "ignore" }).error !== undefined);
  return missing.length === 0 ? undefined : `${missing.join(" and ")} not on PATH`;
}

/** One `redis-server` of the cluster. */
export interface ClusterNode {
  readonly port: number;
  /** The node's cluster id (`CLUSTER MYID`). */
  readonly id: string;
  /** Whether the process still runs. */
  readonly alive: boolean;
  /** SIGKILLs the process and waits until it has exited. */
  kill(): Promise<void>;
  /**
   * Resolves with `performance.now()` when the node logs a line matching
   * `pattern` from now on (say `/Failover election won/`: the moment a replica
   * takes over, and may take writes).
   */
  logged(pattern: RegExp): Promise<number>;
}

/** Who serves a key now: the primary holding its slot, and that primary's replicas. */
export interface SlotOwner {
  readonly slot: number;
  readonly primary: ClusterNode;
  readonly replicas: readonly ClusterNode[];
}

export interface RedisCluster {
  readonly nodes: readonly ClusterNode[];
  /** `{ host, port }` of every node, for a cluster client's start-up nodes. */
  readonly startupNodes: readonly { readonly host: string; readonly port: number }[];
  /** A connection to one node (not a cluster client), closed by `stop()` or when the node is killed. */
  node(port: number): Redis;
  /** The primaries serving slots now, as a live node sees the cluster. */
  primaries(): Promise<ClusterNode[]>;
  /** The primary serving `key`'s slot and its replicas, as a live node sees the cluster now. */
  ownerOf(key: string): Promise<SlotOwner>;
  /**
   * Waits until `replica` has taken over as a primary (`role:master`) and every
   * live node says `cluster_state:ok`; rejects after `withinMs`.
   */
  promoted(replica: ClusterNode, withinMs: number): Promise<void>;
  /** Stops every node still running (SIGTERM, SIGKILL after 2 s) and removes the temp dir. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** `cluster-node-timeout`: how long a primary may be unreachable before its replica takes over. */
  readonly nodeTimeoutMs?: number;
}

/** `n` distinct ports nobody listens on now: all held at once, so none is handed out twice. */
async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, HOST, () => resolve());
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Polls `check` every 50 ms until it resolves true; rejects with `what` after
 * `withinMs`, or at once with a {@link NodeExited} that `check` throws.
 */
async function until(what: string, withinMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const done = await check().catch((error: unknown) => {
      if (error instanceof NodeExited) throw error;
      return false;
    });
    if (done) return;
    if (performance.now() > deadline) throw new Error(`Redis Cluster: ${what} within ${withinMs} ms`);
    await delay(50);
  }
}

/** Children of every cluster not yet stopped: killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  log(): string;
  /** Resolves with `performance.now()` when the node logs a line matching `pattern`, from now on. */
  logged(pattern: RegExp): Promise<number>;
}

function startNode(dir: string, port: number, busPort: number, nodeTimeoutMs: number): Started {
  // prettier-ignore
  const args = [
    "--port", String(port), "--bind", HOST, "--dir", dir,
    "--cluster-enabled", "yes", "--cluster-port", String(busPort),
    "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", String(nodeTimeoutMs),
    // A replica takes over however long ago it last heard from its primary.
    "--cluster-replica-validity-factor", "0",
    "--save", "", "--appendonly", "no",
    // Stop at once on SIGTERM, without waiting for the replicas to catch up.
    "--shutdown-on-sigterm", "nosave now",
    // Replicas sync at once after the join (the default waits 5 s for more replicas to gather).
    "--repl-diskless-sync-delay", "0",
  ];
  const child = spawn(SERVER, args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let log = "";
  let partial = "";
  const watchers = new Set<{ readonly pattern: RegExp; resolve(at: number): void }>();
  const collect = (chunk: Buffer): void => {
    const text = chunk.toString();
    // Enough to explain a failed start.
    if (log.length < 20_000) log += text;
    if (watchers.size === 0) return;
    const at = performance.now();
    const lines = (partial + text).split("\n");
    partial = lines.pop()!;
    for (const watcher of watchers) {
      if (!lines.some((line) => watcher.pattern.test(line))) continue;
      watchers.delete(watcher);
      watcher.resolve(at);
    }
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return {
    child,
    port,
    log: () => log,
    logged: (pattern) => new Promise((resolve) => watchers.add({ pattern, resolve })),
  };
}

function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/** One line of `CLUSTER NODES`. */
interface NodeLine {
  readonly id: string;
  readonly port: number;
  readonly flags: readonly string[];
  /** The primary's id, for a replica. */
  readonly primaryId: string | undefined;
  readonly slots: readonly (readonly [number, number])[];
}

function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [id, address, flags, primary, , , , , ...slots] = line.trim().split(" ");
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(address!)![1]),
        flags: flags!.split(","),
        primaryId: primary === "-" ? undefined : primary,
        slots: slots
          .filter((s) => !s.startsWith("["))
          .map((s) => {
            const [from, to = from] = s.split("-").map(Number);
            return [from!, to!] as const;
          }),
      };
    });
}

/** A node exited while the cluster started: its port was taken meanwhile, most likely. */
class NodeExited extends Error {}

/**
 * Starts a six-node cluster and waits until every node says `cluster_state:ok`
 * and every replica is in sync. Tries again on other ports if a node exits
 * while starting (another process took a port between the pick and the bind).
 */
export async function startRedisCluster(options: ClusterOptions = {}): Promise<RedisCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options.nodeTimeoutMs ?? 1_000);
    } catch (error) {
      if (!(error instanceof NodeExited) || attempt === 3) throw error;
    }
  }
}

async function startOnce(nodeTimeoutMs: number): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), "llm-limiter-cluster-"));
  const ports = await freePorts(2 * NODES);
  const started = Array.from({ length: NODES }, (_, i) => startNode(dir, ports[i]!, ports[NODES + i]!, nodeTimeoutMs));
  const connections = new Map<number, Redis>();
  const node = (port: number): Redis => {
    let connection = connections.get(port);
    if (!connection) {
      // No retries: a command fails with its connection, rather than wait for a node that is gone.
      connection = new Redis({ host: HOST, port, maxRetriesPerRequest: 0 });
      connection.on("error", () => {});
      connections.set(port, connection);
    }
    return connection;
  };
  const call = async (port: number, ...args: string[]): Promise<string> =>
    String(await node(port).call(args[0]!, ...args.slice(1)));
  const stop = async (): Promise<void> => {
    for (const connection of connections.values()) connection.disconnect();
    await Promise.all(
      started.map(async ({ child }) => {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 2_000);
        await exited(child);
        clearTimeout(killer);
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await until("the nodes did not start", 10_000, async () => {
      const gone = started.find((s) => s.child.exitCode !== null || s.child.signalCode !== null);
      if (gone) throw new NodeExited(`Redis Cluster: the node on ${gone.port} exited while starting`);
      const pings = await Promise.all(started.map((s) => call(s.port, "PING").catch(() => "")));
      return pings.every((p) => p === "PONG");
    });
    const nodeAddresses = started.map((s) => `${HOST}:${s.port}`);
    await execFileAsync(CLI, ["--cluster", "create", ...nodeAddresses, "--cluster-replicas", "1", "--cluster-yes"], {
      timeout: 30_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redis-cli --cluster create failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    await until("the nodes did not all reach cluster_state:ok", 15_000, async () => {
      const infos = await Promise.all(started.map((s) => call(s.port, "CLUSTER", "INFO")));
      return infos.every((info) => parseInfo(info).get("cluster_state") === "ok");
    });
    await until("the replicas did not sync", 15_000, async () => {
      const infos = await Promise.all(started.map((s) => call(s.port, "INFO", "replication")));
      const fields = infos.map(parseInfo);
      return (
        fields.filter((f) => f.get("role") === "master").length === NODES / 2 &&
        fields.filter((f) => f.get("role") === "slave").every((f) => f.get("master_link_status") === "up")
      );
    });
    // Gossip spreads who replicates whom after the slots: wait until every node knows every replica's primary.
    await until("the nodes did not agree on the replicas", 15_000, async () => {
      const views = await Promise.all(started.map((s) => call(s.port, "CLUSTER", "NODES")));
      return views.every((view) => parseNodes(view).filter((l) => l.primaryId !== undefined).length === NODES / 2);
    });
  } catch (error) {
    await stop();
    if (error instanceof NodeExited) throw error;
    const logs = started.map((s) => `--- ${s.port}\n${s.log().slice(-2_000)}`).join("\n");
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }

  const ids = await Promise.all(started.map((s) => call(s.port, "CLUSTER", "MYID")));
  const nodes: ClusterNode[] = started.map(({ child, port, logged }, i) => ({
    port,
    id: ids[i]!,
    logged,
    get alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
      connections.get(port)?.disconnect();
    },
  }));
  const byId = (id: string): ClusterNode => nodes.find((n) => n.id === id)!;
  const live = (): ClusterNode => nodes.find((n) => n.alive)!;

  return {
    nodes,
    startupNodes: nodes.map((n) => ({ host: HOST, port: n.port })),
    node,
    async primaries() {
      const lines = parseNodes(await call(live().port, "CLUSTER", "NODES"));
      return lines.filter((l) => l.flags.includes("master") && l.slots.length > 0).map((l) => byId(l.id));
    },
    async ownerOf(key) {
      const at = live().port;
      const slot = Number(await call(at, "CLUSTER", "KEYSLOT", key));
      const lines = parseNodes(await call(at, "CLUSTER", "NODES"));
      const primary = lines.find(
        (l) =>
          l.flags.includes("master") && !l.flags.includes("fail") && l.slots.some(([a, b]) => a <= slot && slot <= b),
      );
      if (!primary) throw new Error(`Redis Cluster: no primary serves slot ${slot}`);
      const replicas = lines.filter((l) => l.primaryId === primary.id && !l.flags.includes("fail"));
      return { slot, primary: byId(primary.id), replicas: replicas.map((r) => byId(r.id)) };
    },
    async promoted(replica, withinMs) {
      await until(`${replica.port} did not take over`, withinMs, async () => {
        if (parseInfo(await call(replica.port, "INFO", "replication")).get("role") !== "master") return false;
        const alive = nodes.filter((n) => n.alive);
        const infos = await Promise.all(alive.map((n) => call(n.port, "CLUSTER", "INFO")));
        return infos.every((info) => parseInfo(info).get("cluster_state") === "ok");
      });
    },
    stop,
  };
}

export { parseInfo };
