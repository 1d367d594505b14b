import { clock, int } from "../../src/simulate/format.js";
import type { SimulationResult, SimulationRun } from "../../src/simulate/index.js";
import { ARRIVALS, KINDS, QUOTA, usedTokens, type Call } from "./workload.js";

/** One sample of a run (every `sampleMs`). */
type SimulationSample = SimulationRun["samples"][number];

/** Formats rows in columns of `widths`: numbers right-aligned, the columns in `left` left-aligned. */
function columns(widths: readonly number[], left: readonly number[]): (cells: readonly string[]) => string {
  const last = widths.length - 1;
  return (cells) =>
    "  " +
    cells
      .map((c, i) => (!left.includes(i) ? c.padStart(widths[i]!) : i === last ? c : c.padEnd(widths[i]!)))
      .join("  ");
}

/** An aligned text table, sized to its contents; the first column (and those in `left`) left-aligned. */
export function table(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  left: readonly number[] = [0],
): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = columns(widths, left);
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** A table printed a row at a time, so its columns are fixed up front: at least `minWidth` wide. */
export function streamingTable(
  head: readonly string[],
  minWidth: number,
): { head: string; row(cells: readonly string[]): string } {
  const widths = head.map((h) => Math.max(h.length, minWidth));
  const line = columns(widths, [0]);
  return { head: `${line(head)}\n${line(widths.map((w) => "-".repeat(w)))}`, row: line };
}

/** Per kind of traffic: how much of it there is and what it asks for. */
export function workloadTable(calls: readonly Call[]): string {
  const avg = (of: readonly Call[], f: (c: Call) => number): string =>
    int(of.reduce((s, c) => s + f(c), 0) / of.length);
  const rows = KINDS.map((kind) => {
    const of = calls.filter((c) => c.kind === kind);
    return [
      kind,
      int(of.length),
      avg(of, (c) => c.prompt),
      int(of[0]?.maxTokens ?? 0),
      avg(of, (c) => c.actual),
      int(of.reduce((s, c) => s + usedTokens(c), 0)),
      ARRIVALS[kind],
    ];
  });
  rows.push([
    "total",
    int(calls.length),
    "",
    "",
    "",
    int(calls.reduce((s, c) => s + usedTokens(c), 0)),
    `last arrival at ${clock(Math.max(...calls.map((c) => c.at)))}`,
  ]);
  const head = ["kind", "calls", "avg prompt", "max_tokens", "avg answer", "tokens used", "arrivals"];
  return table(head, rows, [0, head.length - 1]);
}

export const PROGRESS_HEAD = [
  "time",
  "arrived",
  "admitted",
  "done",
  "queued",
  "in flight",
  "rpm left",
  "tpm left",
  "429s",
] as const;

/** One progress row from a sample of the limiter's run: its own view (`snapshot()`) beside the provider's counters. */
export function progressRow(sample: SimulationSample): string[] {
  return [
    clock(sample.t),
    int(sample.arrived),
    int(sample.sent),
    int(sample.served),
    int(sample.waiting),
    int(sample.inFlight),
    int(sample.levels["rpm"] ?? NaN),
    int(sample.levels["tpm"] ?? NaN),
    int(sample.rejected),
  ];
}

/** One client's totals for the closing table. */
export function resultRow(label: string, result: SimulationResult, run: SimulationRun): string[] {
  const { summary } = run;
  return [
    label,
    int(summary.calls),
    int(summary.completed),
    int(summary.failed),
    int(summary.rejected),
    clock(summary.makespanMs, true),
    `${int(summary.tokensPerMinute)} (${Math.round((100 * summary.tokensPerMinute) / QUOTA.tpm)}%)`,
    // The bound assumes every call completes: a client that drops calls can "beat" it.
    (result.bound.ms / summary.makespanMs).toFixed(2) + (summary.failed > 0 ? "*" : " "),
  ];
}

/** Failed calls by kind, e.g. `0 chat, 22 long, 108 batch`: outcomes are in workload order, as `calls`. */
export function failuresByKind(calls: readonly Call[], run: SimulationRun): string {
  return KINDS.map((kind) => `${run.outcomes.filter((o, i) => !o.ok && calls[i]!.kind === kind).length} ${kind}`).join(
    ", ",
  );
}

export const RESULT_HEAD = [
  "client",
  "calls",
  "completed",
  "failed",
  "429s drawn",
  "makespan",
  "tokens/min (of quota)",
  "bound/makespan",
] as const;
