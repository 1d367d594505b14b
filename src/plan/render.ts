import type { Plan } from "./types.js";

/** A number as people read it: grouped, whole from 100 up, else to 3 significant digits. */
export function amount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const options: Intl.NumberFormatOptions =
    Math.abs(n) >= 100 ? { maximumFractionDigits: 0 } : { maximumSignificantDigits: 3 };
  return n.toLocaleString("en-US", options);
}

function percent(share: number): string {
  return `${amount(share * 100)}%`;
}

/** Ms as the largest unit that keeps it readable: `850 ms`, `6.9 s`, `4 min`, `2.5 h`. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${amount(ms)} ms`;
  if (ms < 60_000) return `${amount(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${amount(ms / 60_000)} min`;
  return `${amount(ms / 3_600_000)} h`;
}

/** Rows of cells as left-aligned columns two spaces apart. */
function columns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
}

/** The plan as a short aligned text block for a terminal. */
export function renderPlan(plan: Plan): string {
  const { overReservation: over, inFlight } = plan;
  const fullest = plan.dimensions.reduce((most, d) => (d.heldShare > most.heldShare ? d : most));
  const summary: string[][] = [
    ["binding", plan.binding.reason],
    ...(plan.crossover === undefined ? [] : [["crossover", `${amount(plan.crossover)} tokens a request (tpm / rpm)`]]),
    ["sustainable", `${amount(plan.callsPerMinute)} calls/min`],
    // With no latency nothing is held: no budget to name.
    [
      "in flight",
      `${amount(inFlight.calls)} calls, holding ${amount(inFlight.heldTokens)} tokens they will not use${over.heldShare > 0 ? ` (${percent(over.heldShare)} of ${fullest.name})` : ""}`,
    ],
    [
      "max_tokens",
      `reserves ${amount(over.factor)}x the answer; full buckets admit ${amount(over.callsAtOnce)} calls at once, ` +
        `${amount(over.callsAtOnceExact)} with max_tokens = completion (${percent(over.burstShareLost)} lost)`,
    ],
    ...(plan.burst === undefined
      ? []
      : [[`burst ${amount(plan.burst.calls)}`, `drains in ${duration(plan.burst.drainMs)} (${plan.burst.dimension})`]]),
  ];
  const header = ["budget", "limit", "calls/min", "at once", "held", ...(plan.burst === undefined ? [] : ["drain"])];
  const table = plan.dimensions.map((d) => [
    d.name,
    amount(d.limit),
    amount(d.callsPerMinute),
    amount(d.callsAtOnce),
    percent(d.heldShare),
    ...(d.drainMs === undefined ? [] : [duration(d.drainMs)]),
  ]);
  return [
    ...columns(summary),
    "",
    ...columns([header, ...table]),
    "",
    ...plan.recommendations.map((r) => `- ${r}`),
  ].join("\n");
}
