/**
 * llm-limiter's Redis store beside rate-limiter-flexible's RateLimiterRedis,
 * against a redis-server of its own: admissions per second from one caller,
 * and from 1 and from 4 processes of many callers, on a budget that never
 * binds; Redis commands per admission; the makespan of 4 processes sharing
 * a budget that binds, against its bound; and admissions per second through a
 * Redis Cluster of its own, beside the single server's (reported, not targeted).
 * Prints markdown and writes it to bench/results/redis.md, keeping the records below its marker.
 * With `--one-caller`, runs the one-caller rounds alone and prints their table without writing the file;
 * `--callers` does the same for the many-callers rows; `--duration-ms=<ms>` shortens every run (3,000 by
 * default), for a quicker, noisier look.
 *
 *   npx tsx bench/redis.ts [--one-caller | --callers] [--duration-ms=<ms>]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import type { Job, Library, Report, RequestBudget } from "./redis/jobs.js";
import { commandsRun, resetCommandStats } from "./redis/commandstats.js";
import {
  callersSection,
  oneCallerSection,
  report,
  type Costs,
  type MakespanRow,
  type ThroughputRow,
  type UncontendedRows,
} from "./redis/report.js";
// The same throwaway server the tests start.
import { startRedisServer } from "../examples/shared/redis-server.js";
// The throwaway Cluster the Cluster tests start.
import { startRedisCluster, type RedisCluster } from "../test/redis-cluster/cluster.js";
import { runWorkers, type Run } from "./redis/workers.js";
import { providerView } from "./redis/bucket.js";
import { keptRecords, RECORDS_MARKER } from "./goodput/report.js";

const CALLERS = 32;
const DURATION_MS = Number(
  /^--duration-ms=(\d+)$/.exec(process.argv.find((a) => a.startsWith("--duration-ms=")) ?? "")?.[1] ?? 3_000,
);
/**
 * Runs per throughput configuration, interleaved across libraries; the best is kept (the neighbours' load only slows a
 * run down).
 */
const ROUNDS = 2;
const PROCESSES = [1, 4] as const;
/** One caller awaiting one admission after another: nothing is ever queued behind it. */
const UNCONTENDED: readonly Library[] = ["llm-limiter", "llm-limiter-rpm", "rate-limiter-flexible"];
/**
 * Rounds of the one-caller runs, each library in fresh processes, the order reversed from round to round; the ratio
 * reported is the median of the rounds' ratios (a neighbour's load hits the runs of one round alike).
 */
const UNCONTENDED_ROUNDS = 5;
const THROUGHPUT: readonly Library[] = ["llm-limiter", "llm-limiter-settle", "rate-limiter-flexible"];
/** 600 at once, then 60/s: 1,200 requests cannot all be admitted before 10 s. */
const BINDING: RequestBudget = { limit: 600, windowMs: 10_000 };
const REQUESTS = 1_200;
const MAKESPAN_PROCESSES = 4;
const MAKESPAN: readonly Library[] = ["llm-limiter", "llm-limiter-at-once", "rate-limiter-flexible"];

/** Runs `jobs` in their own processes, counting the server's commands (a Cluster's: its primaries') from "go" on. */
async function measured(redis: Redis | readonly Redis[], jobs: Job[]): Promise<Run & { commands: number }> {
  const run = await runWorkers(jobs, () => resetCommandStats(redis));
  return { ...run, commands: await commandsRun(redis) };
}

/** Round trips (commands the clients sent) and commands Redis ran (scripts' own calls included), per admission. */
function perAdmission(reports: readonly Report[], commands: number, admissions: number): Costs {
  const sent = reports.reduce((sum, r) => sum + r.commandsSent, 0);
  return { roundTrips: sent / admissions, serverCommands: commands / admissions };
}

/** `callers` loops in each of `processes` processes on one key, for `DURATION_MS` (through `cluster` if given). */
async function throughputRow(
  url: string,
  redis: Redis | readonly Redis[],
  library: Library,
  processes: number,
  callers: number,
  key: string,
  cluster?: RedisCluster,
): Promise<ThroughputRow> {
  const job: Job = {
    kind: "throughput",
    library,
    redisUrl: url,
    ...(cluster && { cluster: cluster.startupNodes }),
    key,
    callers,
    durationMs: DURATION_MS,
  };
  const { reports, commands } = await measured(
    redis,
    Array.from({ length: processes }, () => job),
  );
  const admissions = reports.reduce((sum, r) => sum + r.admissions, 0);
  const seconds = Math.max(...reports.map((r) => r.elapsedMs)) / 1_000;
  return { library, processes, perSecond: admissions / seconds, ...perAdmission(reports, commands, admissions) };
}

async function throughputRows(url: string, redis: Redis): Promise<ThroughputRow[]> {
  const best = new Map<string, ThroughputRow>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const processes of PROCESSES) {
      for (const library of THROUGHPUT) {
        const row = await throughputRow(
          url,
          redis,
          library,
          processes,
          CALLERS,
          `bench:${library}:${processes}:${round}`,
        );
        const id = `${library}×${processes}`;
        if (row.perSecond > (best.get(id)?.perSecond ?? 0)) best.set(id, row);
        process.stderr.write(
          `throughput: ${library} from ${processes} process(es), round ${round + 1}/${ROUNDS} done\n`,
        );
      }
    }
  }
  return [...best.values()];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One caller, `UNCONTENDED_ROUNDS` interleaved rounds: per library its median round, with the median ratio. */
async function uncontendedRows(url: string, redis: Redis): Promise<UncontendedRows> {
  const runs = new Map<Library, ThroughputRow[]>(UNCONTENDED.map((library) => [library, []]));
  const ours = UNCONTENDED.filter((library) => library !== "rate-limiter-flexible");
  const ratios = new Map<Library, number[]>(ours.map((library) => [library, []]));
  for (let round = 0; round < UNCONTENDED_ROUNDS; round++) {
    const order = round % 2 === 0 ? UNCONTENDED : [...UNCONTENDED].reverse();
    const rows = new Map<Library, ThroughputRow>();
    for (const library of order) {
      rows.set(library, await throughputRow(url, redis, library, 1, 1, `bench:${library}:uncontended:${round}`));
    }
    for (const [library, row] of rows) runs.get(library)!.push(row);
    const flexible = rows.get("rate-limiter-flexible")!.perSecond;
    for (const library of ours) ratios.get(library)!.push(rows.get(library)!.perSecond / flexible);
    process.stderr.write(`uncontended: round ${round + 1}/${UNCONTENDED_ROUNDS} done\n`);
  }
  const rows = UNCONTENDED.map((library) => {
    const all = runs.get(library)!;
    return {
      library,
      processes: 1,
      perSecond: median(all.map((row) => row.perSecond)),
      roundTrips: median(all.map((row) => row.roundTrips)),
      serverCommands: median(all.map((row) => row.serverCommands)),
      ratio: median(ratios.get(library) ?? [1]),
    };
  });
  return { rows, ratios };
}

async function makespanRows(url: string, redis: Redis): Promise<MakespanRow[]> {
  const rows: MakespanRow[] = [];
  for (const library of MAKESPAN) {
    const job: Job = {
      kind: "makespan",
      library,
      redisUrl: url,
      key: `bench:${library}:binding`,
      budget: BINDING,
      requests: REQUESTS / MAKESPAN_PROCESSES,
    };
    const { reports, goAt, commands } = await measured(
      redis,
      Array.from({ length: MAKESPAN_PROCESSES }, () => job),
    );
    const times = reports.flatMap((r) => r.admittedAt.map((at) => at - goAt));
    rows.push({
      library,
      makespanMs: Math.max(...times),
      ...perAdmission(reports, commands, times.length),
      provider: providerView(times, BINDING),
    });
    process.stderr.write(`makespan: ${library} done\n`);
  }
  return rows;
}

/**
 * llm-limiter through an ioredis `Cluster` on a Redis Cluster of its own (three primaries, three
 * replicas, on this host), as many processes and callers as the single-server rows, each run
 * followed by one on the single server so that both see the same neighbours; best of as many
 * rounds: reported, not targeted.
 */
async function clusterRows(url: string, redis: Redis): Promise<{ cluster: ThroughputRow[]; single: ThroughputRow[] }> {
  const cluster = await startRedisCluster();
  try {
    const primaries = (await cluster.primaries()).map((node) => cluster.node(node.port));
    const best = { cluster: new Map<number, ThroughputRow>(), single: new Map<number, ThroughputRow>() };
    const keep = (rows: Map<number, ThroughputRow>, row: ThroughputRow): void => {
      if (row.perSecond > (rows.get(row.processes)?.perSecond ?? 0)) rows.set(row.processes, row);
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const processes of PROCESSES) {
        const key = `bench:cluster:${processes}:${round}`;
        keep(best.cluster, await throughputRow("", primaries, "llm-limiter", processes, CALLERS, key, cluster));
        keep(best.single, await throughputRow(url, redis, "llm-limiter", processes, CALLERS, `${key}:single`));
        process.stderr.write(`cluster: llm-limiter from ${processes} process(es), round ${round + 1}/${ROUNDS} done\n`);
      }
    }
    return { cluster: [...best.cluster.values()], single: [...best.single.values()] };
  } finally {
    await cluster.stop();
  }
}

const server = await startRedisServer();
const redis = new Redis(server.url);
if (process.argv.includes("--one-caller") || process.argv.includes("--callers")) {
  try {
    const section = process.argv.includes("--one-caller")
      ? oneCallerSection(await uncontendedRows(server.url, redis), DURATION_MS)
      : callersSection(await throughputRows(server.url, redis), CALLERS, ROUNDS, DURATION_MS);
    process.stdout.write(`${section}\n`);
  } finally {
    redis.disconnect();
    await server.stop();
  }
  process.exit(0);
}
let markdown: string;
try {
  const uncontended = await uncontendedRows(server.url, redis);
  const throughput = await throughputRows(server.url, redis);
  const makespan = await makespanRows(server.url, redis);
  const cluster = await clusterRows(server.url, redis);
  const boundMs = ((REQUESTS - BINDING.limit) * BINDING.windowMs) / BINDING.limit;
  markdown = report({
    callers: CALLERS,
    rounds: ROUNDS,
    durationMs: DURATION_MS,
    uncontended,
    throughputRows: throughput,
    makespanRows: makespan,
    clusterRows: cluster.cluster,
    clusterSingleRows: cluster.single,
    boundMs,
    binding: BINDING,
    requests: REQUESTS,
    processes: MAKESPAN_PROCESSES,
  });
} finally {
  redis.disconnect();
  await server.stop();
}

process.stdout.write(`${markdown}\n`);
mkdirSync(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
const file = fileURLToPath(new URL("./results/redis.md", import.meta.url));
// Records of earlier runs (figures from before a change) below the marker are kept, as bench/goodput.ts keeps its own.
const records = existsSync(file) ? keptRecords(readFileSync(file, "utf8")) : "";
writeFileSync(file, records === "" ? `${markdown}\n` : `${markdown}\n\n${RECORDS_MARKER}\n${records}`);
