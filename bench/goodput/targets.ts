/** The targets, checked on whichever workloads ran. */
import { FIRST_RESPONSES, admissionsPerMinute, type Metrics } from "./metrics.js";
import type { OracleRun } from "./oracle.js";
import type { Contender } from "./contenders.js";
import type { Workload } from "./workloads.js";

export interface Row {
  readonly contender: Contender;
  readonly metrics: Metrics;
}

export interface Result {
  readonly workload: Workload;
  readonly rows: readonly Row[];
  /** The oracle's run: a FIFO client sending each call the first instant the provider is sure to accept it. */
  readonly oracle: OracleRun;
}

export interface Target {
  readonly name: string;
  readonly met: boolean;
  /** What missed it, or what was measured. */
  readonly detail: string;
}

export const OURS = "llm-limiter";
/** The baseline, not a peer: it trades 429s for speed, so "ahead" does not apply. */
export const BASELINE = "no limiter";
/**
 * llm-limiter's default `arrivalDelayMs`: to be safe for calls reaching the
 * provider up to that late, it may finish that much after an oracle that knows
 * they arrive at once. The workloads without delays allow it, and a second.
 */
const LIBRARY_ARRIVAL_DELAY_MS = 500;
const AT_ORACLE_MS = LIBRARY_ARRIVAL_DELAY_MS + 1_000;
/** On the workloads with arrival delays the oracle is told them, so only the second is allowed. */
const NEAR_ORACLE_MS = 1_000;
/** Workloads 1–7, which predate arrival delays; the later ones each have targets of their own. */
const EXISTING = ["1", "2", "3", "4", "5", "6", "7"];

export const seconds = (ms: number): string => (ms / 1_000).toFixed(1);
export const percent = (share: number): string => `${(share * 100).toFixed(2)}%`;

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

/** 429s, given up and makespan against the oracle's, for a target's detail. */
function summary(m: Metrics, oracle: OracleRun): string {
  const makespan = m.stalled > 0 ? `${m.stalled} still waiting at the cut-off` : `makespan ${seconds(m.makespanMs)} s`;
  return `${m.rejected} 429s, ${m.failed} gave up, ${makespan} vs the oracle's ${seconds(oracle.makespanMs)} s`;
}

/** The targets of the workloads that predate arrival delays. */
function existingTargets(results: readonly Result[]): Target[] {
  const targets: Target[] = [];
  const byId = (ids: readonly string[]) => results.filter((r) => ids.includes(r.workload.id));
  const single = byId(["1", "2", "3"]);
  if (single.length > 0) {
    const misses = single
      .filter((r) => ourMetrics(r).rejected > 0)
      .map((r) => `${r.workload.id}: ${ourMetrics(r).rejected}`);
    targets.push({
      name: "zero 429s, one client told the true quota, continuous provider (1–3)",
      met: misses.length === 0,
      detail: misses.join("; ") || "0 on each",
    });
  }
  for (const r of byId(["1", "2"])) {
    const ratio = ourMetrics(r).ratio;
    targets.push({
      name: `ratio ≥ 0.97 on ${r.workload.id} (${r.workload.title})`,
      met: ratio >= 0.97,
      detail: ratio.toFixed(3),
    });
  }
  for (const r of byId(EXISTING)) {
    const ours = ourMetrics(r);
    const peers = r.rows.filter((row) => row.contender.library !== OURS && row.contender.library !== BASELINE);
    const behind = peers
      .filter((row) => !ahead(ours, row.metrics))
      .map(
        ({ contender, metrics: m }) =>
          `${contender.library} (${m.rejected} 429s, ${m.failed} gave up, ratio ${m.ratio.toFixed(3)})`,
      );
    // Nobody finishes sooner than the oracle, so there the peers can only be matched, and then on 429s too.
    const fewest = Math.min(...peers.map((row) => row.metrics.rejected));
    const atOracle =
      ours.failed === 0 && ours.rejected <= fewest && ours.makespanMs <= r.oracle.makespanMs + AT_ORACLE_MS;
    const mine = `${summary(ours, r.oracle)}, ratio ${ours.ratio.toFixed(3)}`;
    const how =
      behind.length === 0
        ? "ahead of every peer"
        : atOracle
          ? `within ${seconds(AT_ORACLE_MS)} s of the oracle's makespan`
          : "neither";
    const tied = behind.length === 0 ? "" : `; not ahead of ${behind.join(", ")}`;
    const name = `ahead of every peer, or within ${seconds(AT_ORACLE_MS)} s of the oracle's makespan, on ${r.workload.id}`;
    targets.push({ name, met: how !== "neither", detail: `${how}: ${mine}${tied}` });
  }
  for (const r of results.filter((w) => w.workload.columns.includes("late share"))) {
    const m = ourMetrics(r);
    const met = m.lateShare <= 0.01 && m.ratio > 0.9 && m.failed === 0;
    targets.push({
      name: `≤ 1% 429s after the first minute and ratio > 0.9 on ${r.workload.id}`,
      met,
      detail: `${percent(m.lateShare)}, ratio ${m.ratio.toFixed(3)}`,
    });
  }
  return targets;
}

/** A later workload's target on llm-limiter's figures; the detail defaults to its 429s and makespan. */
type Check = (m: Metrics, r: Result) => { readonly name: string; readonly met: boolean; readonly detail?: string };

const nearOracle: Check = (m, r) => ({
  name: `0 429s and a makespan within ${seconds(NEAR_ORACLE_MS)} s of the delay-aware oracle's`,
  met: m.rejected === 0 && m.failed === 0 && m.makespanMs <= r.oracle.makespanMs + NEAR_ORACLE_MS,
});

/** The targets of the workloads issue 9 added, by id. */
const LATER: Readonly<Record<string, Check>> = {
  "8": nearOracle,
  "9": nearOracle,
  "10": (m) => ({ name: "at most one 429, every call served", met: m.rejected <= 1 && m.failed === 0 }),
  "11": (m) => ({
    name: `≤ 1% 429s per call and none after the first ${FIRST_RESPONSES} responses`,
    met: m.rejectedPerCall <= 0.01 && m.rejectedAfterResponses === 0,
    detail: `${percent(m.rejectedPerCall)} per call, ${m.rejectedAfterResponses} after the first ${FIRST_RESPONSES} responses`,
  }),
  "12": (m, r) => {
    const oracle = oraclePerMinute(r.oracle);
    const share = m.admissionsPerMinute / oracle;
    return {
      name: `≥ 90% of the oracle's admissions per minute from 60 s on, and no 429 after the first ${FIRST_RESPONSES} responses`,
      met: share >= 0.9 && m.rejectedAfterResponses === 0,
      detail:
        `${m.admissionsPerMinute.toFixed(2)}/min vs the oracle's ${oracle.toFixed(2)} (${percent(share)}), ` +
        `${m.rejectedAfterResponses} 429s after the first ${FIRST_RESPONSES} responses`,
    };
  },
  "14": (m, r) => ({
    name: "≤ 1% 429s per call and a makespan within 5% of the quota's bound",
    met: m.rejectedPerCall <= 0.01 && m.ratio >= 1 / 1.05 && m.failed === 0,
    detail: `${percent(m.rejectedPerCall)} per call, ratio ${m.ratio.toFixed(3)}; ${summary(m, r.oracle)}`,
  }),
  "13": (m, r) => ({
    name: "at most 5 429s for the restarted process",
    met: m.rejectedByRestarted <= 5,
    detail: `${m.rejectedByRestarted} for the restarted process; ${summary(m, r.oracle)}`,
  }),
};

/** The oracle's admissions per minute from 60 s to its last. */
export function oraclePerMinute(oracle: OracleRun): number {
  return admissionsPerMinute(oracle.admittedAt, Math.max(...oracle.admittedAt));
}

export function checkTargets(results: readonly Result[]): Target[] {
  const later = results.flatMap((r) => {
    const check = LATER[r.workload.id];
    if (!check) return [];
    const m = ourMetrics(r);
    const { name, met, detail } = check(m, r);
    return [{ name: `${name} on ${r.workload.id}`, met, detail: detail ?? summary(m, r.oracle) }];
  });
  return [...existingTargets(results), ...later];
}

export function targetList(targets: readonly Target[]): string {
  return targets.map((t) => `- ${t.met ? "met" : "**missed**"}: ${t.name}: ${t.detail}`).join("\n");
}
