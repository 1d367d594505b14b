import type { LimiterSnapshot } from "../../src/index.js";
import type { ProviderStats } from "../../src/testing/index.js";
import type { Outcome } from "./clients.js";
import { ARRIVALS, KINDS, QUOTA, usedTokens, type Call } from "./workload.js";

const MINUTE_MS = 60_000;

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

/** `m:ss` (or `m:ss.s` with `tenths`) of a duration in ms. */
export function clock(ms: number, tenths = false): string {
  // Round once, in the smallest unit shown, so 59.96 s reads 1:00.0 and not 0:60.0.
  const unit = tenths ? 100 : 1000;
  const total = tenths ? Math.round(ms / unit) : Math.floor(ms / unit);
  const perMinute = MINUTE_MS / unit;
  const secs = tenths
    ? ((total % perMinute) / 10).toFixed(1).padStart(4, "0")
    : String(total % perMinute).padStart(2, "0");
  return `${Math.floor(total / perMinute)}:${secs}`;
}

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

/**
 * The shortest makespan any client could reach from full buckets: it cannot
 * finish before the last arrival, nor send N requests or spend Σ(prompt +
 * actual) tokens faster than a burst of one capacity plus the refill rate.
 */
export function lowerBound(calls: readonly Call[]): { ms: number; binding: string } {
  const drain = (total: number, limit: number): number => (Math.max(0, total - limit) * MINUTE_MS) / limit;
  const terms: [string, number][] = [
    ["last arrival", Math.max(...calls.map((c) => c.at))],
    ["rpm", drain(calls.length, QUOTA.rpm)],
    [
      "tpm",
      drain(
        calls.reduce((sum, c) => sum + usedTokens(c), 0),
        QUOTA.tpm,
      ),
    ],
  ];
  const [binding, ms] = terms.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { ms, binding };
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

/** One progress row: the limiter's own view (`snapshot()`) beside the provider's counters. */
export function progressRow(
  elapsedMs: number,
  calls: readonly Call[],
  admitted: number,
  snapshot: LimiterSnapshot,
  stats: ProviderStats,
): string[] {
  return [
    clock(elapsedMs),
    int(calls.filter((c) => c.at <= elapsedMs).length),
    int(admitted),
    int(stats.served),
    int(snapshot.queued),
    int(snapshot.inFlight),
    int(snapshot.dimensions["rpm"]?.available ?? NaN),
    int(snapshot.dimensions["tpm"]?.available ?? NaN),
    int(stats.rejected),
  ];
}

/** One client's totals for the closing table. */
export function resultRow(
  label: string,
  calls: readonly Call[],
  outcomes: readonly Outcome[],
  stats: ProviderStats,
): string[] {
  const completed = outcomes.filter((o) => o.ok);
  const makespan = Math.max(...outcomes.map((o) => o.endedAt));
  const perMinute = (completed.reduce((s, o) => s + usedTokens(o.call), 0) * MINUTE_MS) / makespan;
  return [
    label,
    int(outcomes.length),
    int(completed.length),
    int(outcomes.length - completed.length),
    int(stats.rejected),
    clock(makespan, true),
    `${int(perMinute)} (${Math.round((100 * perMinute) / QUOTA.tpm)}%)`,
    // The bound assumes every call completes: a client that drops calls can "beat" it.
    (lowerBound(calls).ms / makespan).toFixed(2) + (completed.length < outcomes.length ? "*" : " "),
  ];
}

/** Failed calls by kind, e.g. `0 chat, 22 long, 108 batch`. */
export function failuresByKind(outcomes: readonly Outcome[]): string {
  return KINDS.map((kind) => `${outcomes.filter((o) => !o.ok && o.call.kind === kind).length} ${kind}`).join(", ");
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
