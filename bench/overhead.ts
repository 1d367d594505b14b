/**
 * Overhead of llm-limiter next to its peers: calls per second with 1,000
 * callers in flight on a limit that never binds, and heap bytes per queued
 * waiter. Prints markdown and writes it to bench/results/overhead.md.
 *
 *   node --expose-gc --import tsx bench/overhead.ts   (npm run bench)
 */
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { collect, median, throughput, type Rate } from "./measure.js";
import { contenders, queuedWaits, versionOf, type Contender } from "./peers.js";
import { markdownTable, ratio, whole } from "./table.js";

const CALLERS = 1_000;
const ROUNDS = 7;
const RUN_MS = 1_000;
const WARMUP_MS = 400;
const QUEUED = 100_000;
/** Waiters queued before the heap baseline, so lazily built code and structures are not counted. */
const QUEUED_WARMUP = 1_000;
const SPEED_TARGET = 2;
const BYTES_TARGET = 300;

const run = promisify(execFile);

async function timedRun(contender: Contender, durationMs: number): Promise<Rate> {
  collect(); // the previous library's garbage is not charged to this one
  const open = contender.open();
  try {
    return await throughput(() => open.call(), CALLERS, durationMs);
  } finally {
    open.close();
  }
}

/** Rotated by one each round, and reversed every other one: nobody always runs first, or after the same peer. */
function roundOrder<T>(items: readonly T[], round: number): T[] {
  const k = round % items.length;
  const rotated = [...items.slice(k), ...items.slice(0, k)];
  return round % 2 === 1 ? rotated.reverse() : rotated;
}

async function speedSamples(): Promise<Map<Contender, Rate[]>> {
  for (const contender of contenders) await timedRun(contender, WARMUP_MS);
  const samples = new Map(contenders.map((c) => [c, [] as Rate[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const contender of roundOrder(contenders, round))
      samples.get(contender)!.push(await timedRun(contender, RUN_MS));
    process.stderr.write(`speed: round ${round + 1}/${ROUNDS} done\n`);
  }
  return samples;
}

/** One child process per queued wait (see queued.ts). */
async function bytesPerWaiter(index: number): Promise<number> {
  const script = fileURLToPath(new URL("./queued.ts", import.meta.url));
  const args = [...process.execArgv, script, String(index), String(QUEUED_WARMUP), String(QUEUED)];
  const { stdout } = await run(process.execPath, args);
  return Number(stdout.trim());
}

/**
 * Median over rounds of `pick(peer) / pick(llm-limiter)` in the same round: paired, so load drifting between rounds
 * cancels.
 */
function pairedRatio(peer: readonly Rate[], ours: readonly Rate[], pick: (rate: Rate) => number): number {
  return median(peer.map((rate, round) => pick(rate) / pick(ours[round]!)));
}

function speedTable(samples: Map<Contender, Rate[]>): { table: string; verdict: string } {
  const ours = samples.get(contenders[0]!)!;
  const wall = (r: Rate): number => r.wall;
  const cpu = (r: Rate): number => r.cpu;
  const rows = contenders.map((c) => {
    const s = samples.get(c)!;
    const walls = s.map(wall);
    return [
      c.library,
      versionOf(c.library),
      c.api,
      whole(median(walls)),
      `${whole(Math.min(...walls))} – ${whole(Math.max(...walls))}`,
      ratio(pairedRatio(s, ours, wall)),
      whole(median(s.map(cpu))),
      ratio(pairedRatio(s, ours, cpu)),
    ];
  });
  const peers = contenders.slice(1).map((c) => samples.get(c)!);
  const lead = 1 / Math.max(...peers.map((s) => pairedRatio(s, ours, wall)));
  const cpuLead = 1 / Math.max(...peers.map((s) => pairedRatio(s, ours, cpu)));
  const table = markdownTable(
    [
      "library",
      "version",
      "what each call goes through",
      "calls/s",
      `range of ${ROUNDS} rounds`,
      "÷ llm-limiter",
      "calls per CPU-s",
      "÷ llm-limiter",
    ],
    ["left", "left", "left", "right", "right", "right", "right", "right"],
    rows,
  );
  const verdict =
    `llm-limiter is ${ratio(lead)} the fastest peer in calls/s (target ≥ ${SPEED_TARGET}x: ${lead >= SPEED_TARGET ? "met" : "NOT met"}), ` +
    `${ratio(cpuLead)} in calls per CPU-second.`;
  return { table, verdict };
}

function memoryTable(bytes: readonly number[]): { table: string; verdict: string } {
  const ours = bytes[0]!;
  const rows = queuedWaits.map((w, i) => [
    w.library,
    versionOf(w.library),
    w.api,
    whole(bytes[i]!),
    ratio(bytes[i]! / ours),
  ]);
  const table = markdownTable(
    ["library", "version", "queued wait", "heap bytes per waiter", "÷ llm-limiter `acquire`"],
    ["left", "left", "left", "right", "right"],
    rows,
  );
  const verdict = `llm-limiter \`acquire\`: ${whole(ours)} bytes per queued waiter (target < ${BYTES_TARGET}: ${ours < BYTES_TARGET ? "met" : "NOT met"}).`;
  return { table, verdict };
}

collect(); // fails fast without --expose-gc
const samples = await speedSamples();
const bytes: number[] = [];
for (let i = 0; i < queuedWaits.length; i++) bytes.push(await bytesPerWaiter(i));
process.stderr.write("memory: done\n");

const speed = speedTable(samples);
const memory = memoryTable(bytes);
const cpus = os.cpus();
const report = `# Overhead: llm-limiter and its peers

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} cores · ${os.platform()} ${os.arch()} · \`npm run bench\`

## Throughput

${CALLERS.toLocaleString("en-US")} callers in flight, each awaiting one call after another through the library, on a limit
that never binds (1e12 per minute); the work is the same async no-op. ${ROUNDS} rounds of ${RUN_MS / 1000} s per
library after a ${WARMUP_MS} ms warm-up, the order rotated and reversed between rounds. Rates are medians
over rounds; ratios are medians of the per-round ratios (paired, so load drifting between rounds cancels).
"calls per CPU-s" divides by this process's CPU time instead of wall time: on shared cores it moves less with
the neighbours' load (and a library that waits on timers, like bottleneck, is cheap in CPU but slow in wall time).
llm-limiter does full accounting on two dimensions (RPM and TPM) and settles the reported usage; the peers
that meter one dimension are given one.

${speed.table}

${speed.verdict}

Why two peers are so far behind (from their source): bottleneck's local datastore waits a \`setTimeout(0)\`
in each submit and register, one job at a time behind its submit and register locks, so it stays near
350 calls/s whatever the concurrency; @aid-on/llm-throttle filters its whole consumption history (up to
10,000 records) on every \`consume\` and searches it on every \`adjustConsumption\`: O(history) per call.

## Memory

Heap growth (after \`gc()\`) over ${QUEUED.toLocaleString("en-US")} waiters queued on a limiter with nothing left, after
${QUEUED_WARMUP.toLocaleString("en-US")} warm-up waiters, each library in a fresh process; the returned promises are kept, as
awaiting callers would. @aid-on/llm-throttle has no queue, so it has no row.

${memory.table}

${memory.verdict}
`;

process.stdout.write(report);
const out = new URL("./results/overhead.md", import.meta.url);
mkdirSync(new URL(".", out), { recursive: true });
writeFileSync(out, report);
process.stderr.write(`written to ${fileURLToPath(out)}\n`);
