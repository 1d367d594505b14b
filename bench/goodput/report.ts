/** The tables and the results file. */
import os from "node:os";
import { markdownTable, type Align } from "../table.js";
import { versionOf } from "../peers.js";
import type { Contender } from "./contenders.js";
import { FIRST_RESPONSES, boundMs, type Metrics } from "./metrics.js";
import { RETRIES } from "./retry.js";
import { CUT_OFF_MS } from "./simulate.js";
import { BASELINE, OURS, oraclePerMinute, percent, seconds, targetList, type Result, type Target } from "./targets.js";
import type { Column } from "./workloads.js";

const ORACLE = "*oracle* (FIFO, exact quota)";
/**
 * Starts the part of the results file the bench does not rewrite: records of
 * earlier runs (such as figures from before a change) kept below it as they are.
 */
export const RECORDS_MARKER = "<!-- records: everything below is kept as it is when the bench rewrites this file -->";

const HEADERS: Readonly<Record<Column, string>> = {
  "late share": "429s after 1st min",
  "429s per call": "429s per call",
  "429s after 5 responses": `429s after ${FIRST_RESPONSES} responses`,
  "admissions / min from 60 s": "admissions / min from 60 s",
  "429s of the restarted process": "429s of the restarted process",
};

function cell(column: Column, m: Metrics): string {
  switch (column) {
    case "late share":
      return percent(m.lateShare);
    case "429s per call":
      return percent(m.rejectedPerCall);
    case "429s after 5 responses":
      return String(m.rejectedAfterResponses);
    case "admissions / min from 60 s":
      return m.admissionsPerMinute.toFixed(2);
    case "429s of the restarted process":
      return String(m.rejectedByRestarted);
  }
}

/** The oracle draws no 429s; its admissions per minute are its own. */
function oracleCell(column: Column, result: Result): string {
  if (column === "admissions / min from 60 s") return oraclePerMinute(result.oracle).toFixed(2);
  return column === "late share" || column === "429s per call" ? percent(0) : "0";
}

function version(library: string): string {
  return library === BASELINE ? "" : ` ${versionOf(library)}`;
}

const cutOff = `> ${CUT_OFF_MS / 3_600_000} h`;

export function workloadTable(result: Result): string {
  const { workload } = result;
  const oracleMs = result.oracle.makespanMs;
  const header = [
    "library",
    "429s",
    "429s by dimension",
    "gave up",
    "makespan (s)",
    "vs oracle (s)",
    "bound (s)",
    "bound / makespan",
    ...workload.columns.map((c) => HEADERS[c]),
  ];
  const rows = result.rows.map(({ contender, metrics: m }) => {
    const name = contender.library === OURS ? `**${OURS}**` : contender.library;
    // A client that gave up on calls finished early: its ratio says nothing.
    const ratio = m.failed > 0 ? `(${m.ratio.toFixed(3)})` : m.ratio.toFixed(3);
    const versus = m.makespanMs - oracleMs;
    const makespan =
      m.stalled > 0 ? [cutOff, "–"] : [seconds(m.makespanMs), `${versus >= 0 ? "+" : ""}${seconds(versus)}`];
    return [
      name,
      String(m.rejected),
      m.rejectedBy || "–",
      String(m.failed),
      ...makespan,
      seconds(m.boundMs),
      ratio,
      ...workload.columns.map((c) => cell(c, m)),
    ];
  });
  const bound = boundMs(workload);
  rows.push([
    ORACLE,
    "0",
    "–",
    "0",
    seconds(oracleMs),
    "0.0",
    seconds(bound),
    (bound / oracleMs).toFixed(3),
    ...workload.columns.map((c) => oracleCell(c, result)),
  ]);
  const align = header.map((_, i): Align => (i === 0 || i === 2 ? "left" : "right"));
  return `### ${workload.id}. ${workload.title}\n\n${workload.summary}\n\n${markdownTable(header, align, rows)}`;
}

/** llm-limiter's figures on every workload, one line each. */
export function glanceTable(results: readonly Result[]): string {
  const header = ["workload", "429s", "gave up", "makespan (s)", "oracle (s)", "figures the targets apply to"];
  const rows = results.map((r) => {
    const ours = r.rows.find((row) => row.contender.library === OURS)!.metrics;
    const figures = r.workload.columns
      .map((c) => `${HEADERS[c]} ${cell(c, ours)} (oracle ${oracleCell(c, r)})`)
      .join("; ");
    const makespan = ours.stalled > 0 ? `${cutOff} (${ours.stalled} waiting)` : seconds(ours.makespanMs);
    return [
      `${r.workload.id}. ${r.workload.title}`,
      String(ours.rejected),
      String(ours.failed),
      makespan,
      seconds(r.oracle.makespanMs),
      figures || "–",
    ];
  });
  return markdownTable(header, ["left", "right", "right", "right", "right", "left"], rows);
}

export function resultsFile(
  results: readonly Result[],
  targets: readonly Target[],
  contenders: readonly Contender[],
  wallMs: number,
  records: string,
): string {
  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} cores · ${os.platform()} ${os.arch()}`;
  const setups = contenders.map((c) => `- **${c.library}**${version(c.library)}: ${c.setup}`).join("\n");
  return `# Goodput: how fast each library gets work through a rate-limited provider

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${machine} · ${seconds(wallMs)} s of wall time

Each workload runs on virtual time (\`@sinonjs/fake-timers\`) against the simulator from
\`llm-limiter/testing\` (\`createProvider\`, in process), answering after \`300 + 15 × answer tokens\` ms,
with the same calls and answer lengths for every library. The run starts 25.5 s into the
provider's clock minute. Every client retries a 429 after the provider's \`retry-after-ms\`, up to ${RETRIES} times.
Where a workload says so, each call reaches the provider a seeded, uniformly drawn delay after it
is sent (\`arrivalDelayMs\`), the k-th call to reach the provider's door drawing the k-th delay.

- **429s**: rejections drawn, retries included. **gave up**: calls still rejected after ${RETRIES} retries,
  or still waiting when the run is cut off (${cutOff}).
- **makespan**: from the first arrival until the last call is done.
- **bound** = max(last arrival, (N − C_rpm) / r_rpm, (Σ(prompt + actual) − C_tpm) / r_tpm), with
  the provider's true burst C and rate r (Azure: one 10 s sub-window's floor(limit / 6)). No client
  finishes sooner on a token-bucket provider; a fixed window admits up to twice its limit across a
  boundary, so there the ratio can pass 1. In parentheses: the client gave up on calls, so it
  finished early and its ratio means nothing.
- **429s after 1st min**: the share of attempts arriving after the first simulated minute that drew a 429.
- **429s per call**: 429s over the workload's calls (at least the share of calls that drew one).
- **429s after ${FIRST_RESPONSES} responses**: 429s drawn by calls a client made once it had its first ${FIRST_RESPONSES} responses back (a 429 is one).
- **admissions / min from 60 s**: calls the provider admitted from the 60th second until the oracle's last admission, per minute.
- **429s of the restarted process**: 429s drawn by the process started (restarted) while the key was drained.
- **oracle**: a FIFO client that knows the provider's buckets or windows exactly and sends each
  call, in arrival order, at the earliest instant the provider is sure to accept it whatever arrival
  delay within the workload's range each call draws (\`bench/goodput/oracle.ts\`, its own arithmetic);
  without delays, the instant the provider would accept it. No such FIFO client finishes sooner;
  **vs oracle** is each makespan less its.

How each library is set up (each told the quota in the workload; peers retry inside the
wrapped call, as an SDK with \`maxRetries\` does):

${setups}

## llm-limiter at a glance

${glanceTable(results)}

## Results

${results.map(workloadTable).join("\n\n")}

## Targets

Ahead of a peer: no more 429s, and fewer calls given up or, as many, a higher ratio.
The peers are the five libraries; "no limiter" is the baseline. Where a peer already
reaches the oracle's makespan nobody can be ahead of it, so the target is also met near the
oracle's makespan with no more 429s than any peer and nothing given up; each line says
which applies. Workloads 8–13 each have the target issue 9 sets for them.

${targetList(targets)}

${RECORDS_MARKER}
${records}`;
}

/** What follows the records marker in an earlier results file ("" when there is none). */
export function keptRecords(previous: string): string {
  const at = previous.indexOf(RECORDS_MARKER);
  return at === -1 ? "" : previous.slice(at + RECORDS_MARKER.length + 1);
}
