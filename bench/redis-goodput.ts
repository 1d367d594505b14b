/**
 * Goodput through Redis beside the memory store, on real time (Redis `TIME` is the store's clock):
 * the same calls, queued at once, from 1, 3 and 8 processes on one `RedisStore` key, and from one
 * process on the memory store, against one simulated provider over HTTP that stamps headers at
 * completion, delays each call's arrival by 0–400 ms and answers in 0.3–1.3 s. Each call reserves
 * its prompt plus `max_tokens` 200 and uses the prompt plus 1–200 (about two thirds), so refunds
 * matter. Every limiter runs on default options. Each configuration runs `RUNS` times (seeds 1..RUNS,
 * the same for every configuration), each over a minute; the medians are reported: 429s, makespan,
 * and the makespan's ratio to the memory store's, and how far apart the processes' last completions
 * are (fairness: with equal demand they finish together). Prints markdown and writes
 * bench/results/redis-goodput.md, keeping the records below its marker. About 15 minutes.
 * `--processes 3` (or `3,8`) runs those Redis rows beside the memory store, printed, not written.
 *
 *   npx tsx bench/redis-goodput.ts [--processes N[,N...]]
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { between, createProvider, seededRandom } from "../src/testing/index.js";
import { estimatePromptTokens } from "../src/testing/prompt.js";
import { startRedisServer } from "../examples/shared/redis-server.js";
import { keptRecords, RECORDS_MARKER } from "./goodput/report.js";
import { widestGap } from "../test/redis/served-order.js";
import type { FromGoodputWorker, GoodputJob, GoodputReport } from "./redis/goodput-job.js";
import { epochNow } from "./redis/jobs.js";
import { BOOKING_BATCH } from "../src/store/shared-store.js";

const WORKER = fileURLToPath(new URL("./redis/goodput-worker.ts", import.meta.url));
const LIMITS = { rpm: 1_000, tpm: 45_000 };
/** 480 calls of ~196 tokens used: about 94,000 tokens, 68 s at 45,000 TPM past the first minute's burst. */
const CALLS = 480;
const MAX_TOKENS = 200;
const PROMPT = "x".repeat(360);
const RUNS = 3;
const TARGETS = { 1: 1.05, 3: 1.1, 8: 1.1 } as const;
/** Calls in one booking batch: an eighth of the TPM bucket, each call reserving its prompt and `MAX_TOKENS`. */
const BATCH_CALLS = Math.floor(
  (LIMITS.tpm * BOOKING_BATCH.share) / (estimatePromptTokens({ messages: [{ content: PROMPT }] }) + MAX_TOKENS),
);
const PROCESSES = [1, 3, 8] as const;
/** The Redis rows to run: every one unless `--processes` names some (then the file is not written). */
const chosen = chosenProcesses(process.argv.slice(2));

function chosenProcesses(args: readonly string[]): readonly number[] {
  const at = args.indexOf("--processes");
  if (at < 0) return PROCESSES;
  const named = (args[at + 1] ?? "").split(",").map(Number);
  if (named.length === 0 || named.some((n) => !(PROCESSES as readonly number[]).includes(n)))
    throw new Error(`--processes takes some of ${PROCESSES.join(", ")}, comma-separated`);
  return named;
}

interface RunResult {
  readonly rejected: number;
  readonly makespanMs: number;
  /** The last completion of the process that finished last, less that of the one that finished first. */
  readonly spreadMs: number;
  /** The widest gap, in Redis' order, between the calls two processes had booked. */
  readonly gap: number;
  readonly warnings: readonly string[];
}

/** One run: `processes` workers (the memory store when `redisUrl` is undefined) sharing `CALLS`. */
async function run(processes: number, redisUrl: string | undefined, seed: number): Promise<RunResult> {
  const random = seededRandom(seed);
  const provider = createProvider({
    ...LIMITS,
    seed,
    latencyMs: (call) => 300 + 5 * call.actual,
    arrivalDelayMs: () => between(random, 0, 400),
  });
  const server = await provider.listen();
  const job: GoodputJob = {
    redisUrl,
    key: `bench:goodput:${randomUUID()}`,
    providerUrl: server.url,
    calls: CALLS / processes,
    maxTokens: MAX_TOKENS,
    prompt: PROMPT,
    promptTokens: estimatePromptTokens({ messages: [{ content: PROMPT }] }),
    limits: LIMITS,
  };
  try {
    const children = Array.from({ length: processes }, () =>
      fork(WORKER, [JSON.stringify(job)], { execArgv: ["--import", "tsx"] }),
    );
    const next = (type: FromGoodputWorker["type"]): Promise<FromGoodputWorker[]> =>
      Promise.all(
        children.map(
          (child) =>
            new Promise<FromGoodputWorker>((resolve, reject) => {
              child.once("exit", (code) => reject(new Error(`goodput worker exited with ${code}`)));
              child.on("message", (m: FromGoodputWorker) => m.type === type && resolve(m));
            }),
        ),
      );
    await next("ready");
    const done = next("done");
    const goAt = epochNow();
    for (const child of children) child.send({ type: "go" });
    const reports = (await done).map((m) => (m as { report: GoodputReport }).report);
    const finished = reports.map((r) => Math.max(...r.completedAt));
    return {
      rejected: provider.stats().rejected,
      makespanMs: Math.max(...finished) - goAt,
      spreadMs: Math.max(...finished) - Math.min(...finished),
      gap: widestGap(
        reports.flatMap((r, p) => r.takes.map((take) => ({ ...take, p }))),
        processes,
      ),
      warnings: [...new Set(reports.flatMap((r) => r.warnings))],
    };
  } finally {
    await server.close();
  }
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

interface Row {
  readonly store: string;
  readonly processes: number;
  readonly runs: readonly RunResult[];
}

const redis = await startRedisServer();
const started = performance.now();
const rows: Row[] = [];
try {
  const configs = [{ store: "memory", processes: 1 }, ...chosen.map((processes) => ({ store: "redis", processes }))];
  const results = new Map(configs.map((c) => [c, [] as RunResult[]]));
  // Interleaved: a neighbour's load hits every configuration of a round alike.
  for (let seed = 1; seed <= RUNS; seed++) {
    for (const config of configs) {
      const result = await run(config.processes, config.store === "redis" ? redis.url : undefined, seed);
      results.get(config)!.push(result);
      process.stderr.write(
        `${config.store} ×${config.processes}, run ${seed}/${RUNS}: ${result.rejected} 429s, ` +
          `${seconds(result.makespanMs)} s, finished ${seconds(result.spreadMs)} s apart, widest gap ${result.gap} calls${result.warnings.length ? `, warnings: ${result.warnings.join("; ")}` : ""}\n`,
      );
    }
  }
  for (const config of configs) rows.push({ ...config, runs: results.get(config)! });
} finally {
  await redis.stop();
}

const memory = median(rows[0]!.runs.map((r) => r.makespanMs));
const lines = rows.map(({ store, processes, runs }) => {
  const makespan = median(runs.map((r) => r.makespanMs));
  const ratio = makespan / memory;
  const target = store === "redis" ? TARGETS[processes as keyof typeof TARGETS] : undefined;
  const met =
    target === undefined
      ? ""
      : median(runs.map((r) => r.rejected)) === 0 && runs.every((r) => r.rejected === 0) && ratio <= target
        ? "met"
        : "missed";
  return (
    `| ${store === "redis" ? "RedisStore" : "memory store"} | ${processes} | ${runs.map((r) => r.rejected).join(", ")} | ` +
    `${seconds(makespan)} s (${runs.map((r) => seconds(r.makespanMs)).join(", ")}) | ` +
    `${processes === 1 ? "" : `${seconds(median(runs.map((r) => r.spreadMs)))} s (${runs.map((r) => seconds(r.spreadMs)).join(", ")})`} | ` +
    `${processes === 1 ? "" : `${median(runs.map((r) => r.gap))} (${runs.map((r) => r.gap).join(", ")})`} | ` +
    `${ratio.toFixed(3)}× | ${target === undefined ? "reference" : `0 429s, ≤ ${target}×: ${met}`} |`
  );
});
const table = `# Goodput through Redis

\`npm run bench:redis-goodput\` (bench/redis-goodput.ts), on real time (Redis \`TIME\` is the store's
clock), ${RUNS} runs per configuration, interleaved, seeds 1–${RUNS}. ${CALLS} calls queued at once,
shared evenly by the processes, against one simulated provider over HTTP (${LIMITS.tpm.toLocaleString("en-US")} TPM,
${LIMITS.rpm.toLocaleString("en-US")} RPM; headers stamped at completion; arrivals 0–400 ms late;
latency 0.3–1.3 s). Each call reserves its prompt plus \`max_tokens\` ${MAX_TOKENS} and uses the prompt
plus 1–${MAX_TOKENS}. Limiters on default options (a \`RedisStore\` on defaults). Makespan: from "go"
to the last call's completion; the median, then each run's. Finished apart: the last completion of
the process that finished last, less that of the one that finished first (with equal demand,
processes served in step finish together). Widest gap: the most calls one process had booked
beyond another, in the order Redis ran the booking calls (each reply's marks say where:
test/redis/served-order.ts), at any point of the run; one batch is ${BATCH_CALLS} calls (an
eighth of the TPM bucket).
Took ${((performance.now() - started) / 60_000).toFixed(1)} min.

| store | processes | 429s per run | makespan, median (runs) | finished apart, median (runs) | widest gap, calls, median (runs) | vs memory | target |
| --- | --: | --- | --- | --- | --: | --: | --- |
${lines.join("\n")}
`;
console.log(table);
if (chosen.length < PROCESSES.length) process.exit(0);
const file = new URL("results/redis-goodput.md", import.meta.url);
const records = existsSync(file) ? keptRecords(readFileSync(file, "utf8")) : "";
writeFileSync(file, `${table}\n${RECORDS_MARKER}\n${records}`);
console.log(`wrote ${file.pathname}`);
