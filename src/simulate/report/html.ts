import { clock, int } from "../format.js";
import type { SimulationResult, SimulationSummary } from "../types.js";
import { chartsOf } from "./charts.js";
import { stallsOf } from "./stalls.js";
import { escape, lineChart } from "./svg.js";
import { samplesTable, stallSection } from "./tables.js";

/** Options of {@link renderReport}. */
export interface ReportOptions {
  /**
   * The page's title and heading.
   * @default "llm-limiter simulation"
   */
  title?: string;
  /** A line under the heading: where the workload came from, say. */
  subtitle?: string;
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; color: #111827; margin: 2rem auto; max-width: 800px; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { padding: .25rem .75rem; border-bottom: 1px solid #e5e7eb; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.chart { margin: 1.5rem 0; }
.chart svg { width: 100%; height: auto; max-width: 760px; }
figcaption { font-weight: 600; margin-bottom: .25rem; }
.grid { stroke: #e5e7eb; }
.axis { stroke: #6b7280; }
.tick, .unit { font-size: 11px; fill: #4b5563; }
.legend { list-style: none; padding: 0; margin: .25rem 0 0; display: flex; gap: 1rem; flex-wrap: wrap; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .3rem; vertical-align: -1px; }
.note { color: #4b5563; }
.band rect { fill: #dc2626; fill-opacity: .12; stroke: #dc2626; stroke-opacity: .5; }
.band text { font-size: 11px; font-weight: 600; fill: #b91c1c; }
.band-key { background: rgba(220, 38, 38, .12); border: 1px solid rgba(220, 38, 38, .5); }
details { margin: 1.5rem 0; }
details table { font-size: 12px; }
`;

const ms = (v: number): string => `${(v / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} s`;

/** The summary table: one column per run. */
function summaryTable(result: SimulationResult): string {
  const tpm = result.budgets.tpm;
  const rows: [string, (s: SimulationSummary) => string][] = [
    ["calls", (s) => int(s.calls)],
    ["completed", (s) => int(s.completed)],
    ["failed", (s) => int(s.failed)],
    ["attempts sent", (s) => int(s.sent)],
    ["429s drawn", (s) => int(s.rejected)],
    ["makespan", (s) => clock(s.makespanMs, true)],
    // The bound assumes every call completes: a client that drops calls can "beat" it.
    ["bound / makespan", (s) => (result.bound.ms / Math.max(1, s.makespanMs)).toFixed(2) + (s.failed > 0 ? " *" : "")],
    [
      "tokens/min completed",
      (s) =>
        int(s.tokensPerMinute) + (tpm === undefined ? "" : ` (${Math.round((100 * s.tokensPerMinute) / tpm)}% of tpm)`),
    ],
    ["latency p50 (arrival to answer)", (s) => ms(s.latencyMs.p50)],
    ["latency p95", (s) => ms(s.latencyMs.p95)],
    ["latency max", (s) => ms(s.latencyMs.max)],
  ];
  const body = rows
    .map(
      ([name, cell]) =>
        `<tr><td>${escape(name)}</td><td>${cell(result.limiter.summary)}</td><td>${cell(result.naive.summary)}</td></tr>`,
    )
    .join("\n");
  return `<table id="summary"><thead><tr><th></th><th>llm-limiter</th><th>no limiter</th></tr></thead><tbody>
${body}
</tbody></table>`;
}

/**
 * A {@link SimulationResult} as one self-contained HTML page: the workload and budgets, a
 * summary table of both runs, the limiter's stalls, and inline SVG charts over simulated time
 * (each budget's level at the key beside the limiter's view of it, calls waiting, attempts sent
 * and 429s per sample interval, calls served; the limiter's line drawn over the baseline's, its
 * stalls marked), then the same figures as a table. No script, no external asset: it opens
 * offline and can be attached to an issue as it is.
 */
export function renderReport(result: SimulationResult, options: ReportOptions = {}): string {
  const title = options.title ?? "llm-limiter simulation";
  const budgets = Object.entries(result.budgets)
    .map(([name, value]) => `${name} ${int(value)}`)
    .join(", ");
  const { workload, bound } = result;
  const stalls = stallsOf(result.limiter);
  const warnings =
    result.warnings.length === 0
      ? ""
      : `<h2>Warnings</h2><ul>${result.warnings.map((w) => `<li>${escape(w)}</li>`).join("")}</ul>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escape(title)}</h1>
${options.subtitle === undefined ? "" : `<p class="note">${escape(options.subtitle)}</p>`}
<p>One simulated key with ${escape(budgets)} (${escape(result.dialect)} headers, continuous buckets), on virtual
time. ${int(workload.calls)} calls, the last arriving at ${clock(workload.lastArrivalMs)}, using
${int(workload.tokensUsed)} tokens and reserving ${int(workload.tokensReserved)} at admission. No client can
finish before ${clock(bound.ms, true)} (bound by ${escape(bound.binding)}).</p>
<p class="note">llm-limiter: every call through <code>limiter.run</code> on a limiter with the same budgets,
429s retried. No limiter: each call sent on arrival, and after a 429 again once its retry-after has
passed. Both retry a call at most the same number of times. Samples every ${ms(result.sampleMs)}.</p>
${summaryTable(result)}
${
  result.limiter.summary.failed + result.naive.summary.failed > 0
    ? `<p class="note">* The bound assumes every call completes; a run that gave up on calls can come closer to it, or pass it.</p>`
    : ""
}
${stallSection(stalls)}
${chartsOf(result, stalls).map(lineChart).join("\n")}
${samplesTable(result)}
${warnings}
</body>
</html>
`;
}
