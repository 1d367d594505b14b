/** The tables, the targets and the results file. */
import os from "node:os";
import { markdownTable, type Align } from "../table.js";
import { versionOf } from "../peers.js";
import type { Contender } from "./contenders.js";
import { boundMs, type Metrics } from "./metrics.js";
import { RETRIES } from "./retry.js";
import type { Workload } from "./workloads.js";

export interface Row {
  readonly contender: Contender;
  readonly metrics: Metrics;
}

export interface Result {
  readonly workload: Workload;
  readonly rows: readonly Row[];
  /** The makespan of the oracle: a FIFO client admitting each call the instant the provider would accept it. */
  readonly oracleMs: number;
}

export interface Target {
  readonly name: string;
  readonly met: boolean;
  /** What missed it, or what was measured. */
  readonly detail: string;
}

const OURS = "llm-limiter";
/** The baseline, not a peer: it trades 429s for speed, so "ahead" does not apply. */
const BASELINE = "no limiter";
const ORACLE = "*oracle* (FIFO, exact quota)";
/** Virtual time moves in whole milliseconds: a makespan this close to the oracle's is the oracle's. */
const AT_ORACLE_MS = 1;

const seconds = (ms: number): string => (ms / 1_000).toFixed(1);
const percent = (share: number): string => `${(share * 100).toFixed(2)}%`;

function version(library: string): string {
  return library === BASELINE ? "" : ` ${versionOf(library)}`;
}

export function workloadTable(result: Result): string {
  const { workload } = result;
  const header = ["library", "429s", "429s by dimension", "gave up", "makespan (s)", "vs oracle (s)", "bound (s)", "bound / makespan"];
  if (workload.lateShare) header.push("429s after 1st min");
  const rows = result.rows.map(({ contender, metrics: m }) => {
    const name = contender.library === OURS ? `**${OURS}**` : contender.library;
    // A client that gave up on calls finished early: its ratio says nothing.
    const ratio = m.failed > 0 ? `(${m.ratio.toFixed(3)})` : m.ratio.toFixed(3);
    const versus = m.makespanMs - result.oracleMs;
    const cells = [name, String(m.rejected), m.rejectedBy || "–", String(m.failed), seconds(m.makespanMs), `${versus >= 0 ? "+" : ""}${seconds(versus)}`, seconds(m.boundMs), ratio];
    if (workload.lateShare) cells.push(percent(m.lateShare));
    return cells;
  });
  const bound = boundMs(workload);
  const oracle = [ORACLE, "0", "–", "0", seconds(result.oracleMs), "0.0", seconds(bound), (bound / result.oracleMs).toFixed(3)];
  if (workload.lateShare) oracle.push(percent(0));
  rows.push(oracle);
  const align = header.map((_, i): Align => (i === 0 || i === 2 ? "left" : "right"));
  return `### ${workload.id}. ${workload.title}\n\n${workload.summary}\n\n${markdownTable(header, align, rows)}`;
}

/** Ahead: no more 429s, and fewer calls given up or, as many, a higher ratio. */
function ahead(ours: Metrics, peer: Metrics): boolean {
  if (ours.rejected > peer.rejected) return false;
  return ours.failed < peer.failed || (ours.failed === peer.failed && ours.ratio > peer.ratio);
}

function ourMetrics(result: Result): Metrics {
  const row = result.rows.find((r) => r.contender.library === OURS);
  if (!row) throw new Error(`no ${OURS} row for workload ${result.workload.id}`);
  return row.metrics;
}

/** The targets of the issue, checked on whichever workloads ran. */
export function checkTargets(results: readonly Result[]): Target[] {
  const targets: Target[] = [];
  const byId = (ids: readonly string[]) => results.filter((r) => ids.includes(r.workload.id));
  const single = byId(["1", "2", "3"]);
  if (single.length > 0) {
    const misses = single.filter((r) => ourMetrics(r).rejected > 0).map((r) => `${r.workload.id}: ${ourMetrics(r).rejected}`);
    targets.push({ name: "zero 429s, one client told the true quota, continuous provider (1–3)", met: misses.length === 0, detail: misses.join("; ") || "0 on each" });
  }
  for (const r of byId(["1", "2"])) {
    const ratio = ourMetrics(r).ratio;
    targets.push({ name: `ratio ≥ 0.97 on ${r.workload.id} (${r.workload.title})`, met: ratio >= 0.97, detail: ratio.toFixed(3) });
  }
  for (const r of results) {
    const ours = ourMetrics(r);
    const peers = r.rows.filter((row) => row.contender.library !== OURS && row.contender.library !== BASELINE);
    const behind = peers
      .filter((row) => !ahead(ours, row.metrics))
      .map(({ contender, metrics: m }) => `${contender.library} (${m.rejected} 429s, ${m.failed} gave up, ratio ${m.ratio.toFixed(3)})`);
    // Nobody finishes sooner than the oracle, so there the peers can only be matched, and then on 429s too.
    const fewest = Math.min(...peers.map((row) => row.metrics.rejected));
    const atOracle = ours.failed === 0 && ours.rejected <= fewest && ours.makespanMs <= r.oracleMs + AT_ORACLE_MS;
    const mine = `${ours.rejected} 429s, ${ours.failed} gave up, ratio ${ours.ratio.toFixed(3)}, makespan ${seconds(ours.makespanMs)} s vs the oracle's ${seconds(r.oracleMs)} s`;
    const how = behind.length === 0 ? "ahead of every peer" : atOracle ? "at the oracle's makespan" : "neither";
    const tied = behind.length === 0 ? "" : `; not ahead of ${behind.join(", ")}`;
    targets.push({ name: `ahead of every peer, or at the oracle's makespan, on ${r.workload.id}`, met: how !== "neither", detail: `${how}: ${mine}${tied}` });
  }
  for (const r of results.filter((w) => w.workload.lateShare)) {
    const m = ourMetrics(r);
    const met = m.lateShare <= 0.01 && m.ratio > 0.9 && m.failed === 0;
    targets.push({ name: `≤ 1% 429s after the first minute and ratio > 0.9 on ${r.workload.id}`, met, detail: `${percent(m.lateShare)}, ratio ${m.ratio.toFixed(3)}` });
  }
  return targets;
}

export function targetList(targets: readonly Target[]): string {
  return targets.map((t) => `- ${t.met ? "met" : "**missed**"}: ${t.name}: ${t.detail}`).join("\n");
}

export function resultsFile(results: readonly Result[], targets: readonly Target[], contenders: readonly Contender[], wallMs: number): string {
  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} cores · ${os.platform()} ${os.arch()}`;
  const setups = contenders.map((c) => `- **${c.library}**${version(c.library)}: ${c.setup}`).join("\n");
  return `# Goodput: how fast each library gets work through a rate-limited provider

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${machine} · ${seconds(wallMs)} s of wall time

Each workload runs on virtual time (\`@sinonjs/fake-timers\`) against the simulator from
\`llm-limiter/testing\` (\`createProvider\`, in process), answering after \`300 + 15 × answer tokens\` ms,
with the same calls and answer lengths for every library. The run starts 25.5 s into the
provider's clock minute. Every client retries a 429 after the provider's \`retry-after-ms\`, up to ${RETRIES} times.

- **429s**: rejections drawn, retries included. **gave up**: calls still rejected after ${RETRIES} retries.
- **makespan**: from the first arrival until the last call is done.
- **bound** = max(last arrival, (N − C_rpm) / r_rpm, (Σ(prompt + actual) − C_tpm) / r_tpm), with
  the provider's true burst C and rate r (Azure: one 10 s sub-window's floor(limit / 6)). No client
  finishes sooner on a token-bucket provider; a fixed window admits up to twice its limit across a
  boundary, so there the ratio can pass 1. In parentheses: the client gave up on calls, so it
  finished early and its ratio means nothing.
- **429s after 1st min**: the share of attempts arriving after the first simulated minute that drew a 429.
- **oracle**: a FIFO client that knows the provider's buckets or windows exactly and admits each
  call, in arrival order, at the earliest instant the provider would accept it (\`bench/goodput/oracle.ts\`,
  its own arithmetic). No FIFO client finishes sooner; **vs oracle** is each makespan less its.

How each library is set up (each told the quota in the workload; peers retry inside the
wrapped call, as an SDK with \`maxRetries\` does):

${setups}

## Results

${results.map(workloadTable).join("\n\n")}

## Targets

Ahead of a peer: no more 429s, and fewer calls given up or, as many, a higher ratio.
The peers are the five libraries; "no limiter" is the baseline. Where a peer already
reaches the oracle's makespan nobody can be ahead of it, so the target is also met at the
oracle's makespan with no more 429s than any peer and nothing given up; each line says
which applies.

${targetList(targets)}
`;
}
