/** The tables, targets and results file of the headerless workloads (issue 25). */
import os from "node:os";
import { markdownTable, type Align } from "../table.js";
import type { Contender } from "./contenders.js";
import { workloadTable } from "./report.js";
import { RETRIES } from "./retry.js";
import { bestOf, type ServerMetrics } from "./server-metrics.js";
import { OURS, percent, seconds, type Result, type Target } from "./targets.js";
import type { Workload } from "./workloads.js";

/** A self-hosted workload's rows: the contenders and the sweep. */
export interface ServerResult {
  readonly workload: Workload;
  readonly rows: readonly { readonly contender: Contender; readonly metrics: ServerMetrics }[];
  /** The sweep's rows among `rows`. */
  readonly sweep: readonly { readonly contender: Contender; readonly metrics: ServerMetrics }[];
}

/** Issue 25's targets: ≤ 1% 429s after the first minute, makespan within 15% of the quota's bound. */
const LATE_SHARE = 0.01;
const MAKESPAN_SLACK = 1.15;
/** A self-hosted server: throughput within 10% of the best fixed concurrency, p95 latency within 20%. */
const THROUGHPUT_SHARE = 0.9;
const LATENCY_SLACK = 1.2;

function ours<T extends { readonly contender: Contender }>(rows: readonly T[]): T {
  const row = rows.find((r) => r.contender.library === OURS);
  if (!row) throw new Error(`no ${OURS} row`);
  return row;
}

export function serverTable(result: ServerResult): string {
  const best = bestOf(result.sweep);
  const header = ["library", "429s", "gave up", "served / s", "vs best", "p95 latency (s)", "vs best", "makespan (s)"];
  const rows = result.rows.map(({ contender, metrics: m }) => {
    const name =
      contender.library === OURS
        ? `**${OURS}**`
        : contender === best.contender
          ? `*${contender.library}* (best)`
          : contender.library;
    return [
      name,
      String(m.rejected),
      String(m.failed),
      m.throughputPerS.toFixed(2),
      (m.throughputPerS / best.metrics.throughputPerS).toFixed(3),
      seconds(m.p95LatencyMs),
      (m.p95LatencyMs / best.metrics.p95LatencyMs).toFixed(3),
      Number.isFinite(m.makespanMs) ? seconds(m.makespanMs) : "–",
    ];
  });
  const align = header.map((_, i): Align => (i === 0 ? "left" : "right"));
  const { workload } = result;
  return `### ${workload.id}\n\n${workload.title}. ${workload.summary}\n\n${markdownTable(header, align, rows)}`;
}

export function rateTargets(results: readonly Result[]): Target[] {
  return results.map((r) => {
    const m = ours(r.rows).metrics;
    const met = m.lateShare <= LATE_SHARE && m.ratio >= 1 / MAKESPAN_SLACK && m.failed === 0;
    const makespan =
      m.stalled > 0 ? `${m.stalled} waiting at the cut-off` : `makespan / bound ${(1 / m.ratio).toFixed(2)}`;
    return {
      name: `≤ 1% 429s after the first minute and a makespan within 15% of the bound on ${r.workload.id}`,
      met,
      detail: `${percent(m.lateShare)}, ${makespan}, ${m.failed} gave up`,
    };
  });
}

export function serverTargets(results: readonly ServerResult[]): Target[] {
  return results.map((r) => {
    const m = ours(r.rows).metrics;
    const best = bestOf(r.sweep);
    const throughput = m.throughputPerS / best.metrics.throughputPerS;
    const latency = m.p95LatencyMs / best.metrics.p95LatencyMs;
    return {
      name: `throughput within 10% and p95 latency within 20% of the best fixed concurrency on ${r.workload.id}`,
      met: throughput >= THROUGHPUT_SHARE && latency <= LATENCY_SLACK && m.failed === 0,
      detail: `throughput ${throughput.toFixed(3)}x, p95 ${latency.toFixed(3)}x of ${best.contender.library}`,
    };
  });
}

/** llm-limiter's figures on every headerless workload, one line each. */
export function glance(rates: readonly Result[], servers: readonly ServerResult[]): string {
  const rateRows = rates.map((r) => {
    const m = ours(r.rows).metrics;
    const baseline = r.rows.find((row) => row.contender.library === "no limiter")?.metrics;
    return [
      r.workload.id,
      percent(m.lateShare),
      m.stalled > 0 ? `> cut-off (${m.stalled} waiting)` : (1 / m.ratio).toFixed(2),
      String(m.rejected),
      baseline ? percent(baseline.lateShare) : "–",
    ];
  });
  const rateTable = markdownTable(
    ["workload", "429s after 1st min", "makespan / bound", "429s", "no limiter: 429s after 1st min"],
    ["left", "right", "right", "right", "right"],
    rateRows,
  );
  const serverRows = servers.map((r) => {
    const m = ours(r.rows).metrics;
    const best = bestOf(r.sweep);
    return [
      r.workload.id,
      (m.throughputPerS / best.metrics.throughputPerS).toFixed(3),
      (m.p95LatencyMs / best.metrics.p95LatencyMs).toFixed(3),
      best.contender.library,
      `${best.metrics.throughputPerS.toFixed(2)}/s, p95 ${seconds(best.metrics.p95LatencyMs)} s`,
    ];
  });
  const serverTable = markdownTable(
    ["workload", "throughput / best", "p95 latency / best", "best fixed concurrency", "its figures"],
    ["left", "right", "right", "left", "right"],
    serverRows,
  );
  return `${rateTable}\n\n${serverTable}`;
}

export function headerlessFile(
  rates: readonly Result[],
  servers: readonly ServerResult[],
  targets: readonly Target[],
  contenders: readonly Contender[],
  wallMs: number,
  records: string,
  marker: string,
): string {
  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} cores · ${os.platform()} ${os.arch()}`;
  const setups = contenders.map((c) => `- **${c.library}**: ${c.setup}`).join("\n");
  const list = targets.map((t) => `- ${t.met ? "met" : "**missed**"}: ${t.name}: ${t.detail}`).join("\n");
  return `# Goodput against providers that send no rate-limit headers (issue 25)

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${machine} · ${seconds(wallMs)} s of wall time

\`npm run bench:goodput -- --headerless\` (\`npx tsx bench/goodput.ts --headerless [workload ids...]\`; the file is
written when every workload ran). As [goodput.md](goodput.md), on virtual time against the simulator, with the same
calls for every client and every client retrying a 429 up to ${RETRIES} times; but the providers send no rate-limit
header on any response, only their 429s tell (the simulator's dialects \`gemini\`, \`bedrock\`, \`bare\`,
\`openrouter\`, \`self-hosted\`; bodies and sources in [docs/providers.md](../../docs/providers.md)), and llm-limiter
is \`new Limiter()\`, nothing configured. The peers are told the true quota. A 429 without a hint in its headers
(Gemini, Bedrock, OpenRouter, the self-hosted server) is retried by the peers after 1 s.

- **429s after 1st min**: the share of attempts arriving after the first simulated minute that drew a 429.
- **makespan / bound**: the makespan over the quota's bound (as in goodput.md: max(last arrival, (N − C_rpm) /
  r_rpm, (Σ(prompt + actual) − C_tpm) / r_tpm)); the targets ask for at most 1.15. Against clock-aligned windows
  (Gemini, OpenRouter) a client can beat the bound (below 1).
- **self-hosted**: served calls per second from the first arrival to the last completion, and the 95th percentile
  of the served calls' latency at the server (admission to completion), against the best of a sweep of fixed
  concurrencies run in the same run (the highest throughput among the sizes that served every call; within 1%, the
  lowest p95).

Contenders:

${setups}

## llm-limiter at a glance

${glance(rates, servers)}

## Targets

${list}

## Results

${rates.map(workloadTable).join("\n\n")}

${servers.map(serverTable).join("\n\n")}

${marker}
${records}`;
}
