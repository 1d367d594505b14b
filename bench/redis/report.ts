import os from "node:os";
import { DEFAULT_ARRIVAL_DELAY_MS } from "../../src/config.js";
import { markdownTable, ratio, whole } from "../table.js";
import type { ProviderView } from "./bucket.js";
import type { Library, RequestBudget } from "./jobs.js";

/** What an admission costs Redis, on average. */
export interface Costs {
  /** Commands the clients sent: round trips. */
  readonly roundTrips: number;
  /** Commands Redis ran, those inside scripts included (`INFO commandstats`). */
  readonly serverCommands: number;
}

export interface ThroughputRow extends Costs {
  readonly library: Library;
  readonly processes: number;
  readonly perSecond: number;
  /** ÷ rate-limiter-flexible, when not the ratio of the rows' `perSecond` (a median of rounds' ratios). */
  readonly ratio?: number;
}

/** The one-caller rows (median rounds) and, per llm-limiter row, every round's ratio to rate-limiter-flexible. */
export interface UncontendedRows {
  readonly rows: readonly ThroughputRow[];
  readonly ratios: ReadonlyMap<Library, readonly number[]>;
}

export interface MakespanRow extends Costs {
  readonly library: Library;
  readonly makespanMs: number;
  /** The admissions as a provider metering the budget as a bucket would see them. */
  readonly provider: ProviderView;
}

export interface Results {
  readonly callers: number;
  readonly rounds: number;
  readonly durationMs: number;
  /** One caller in one process. */
  readonly uncontended: UncontendedRows;
  readonly throughputRows: readonly ThroughputRow[];
  readonly makespanRows: readonly MakespanRow[];
  /** llm-limiter through an ioredis `Cluster`, as many processes and callers as `throughputRows`. */
  readonly clusterRows: readonly ThroughputRow[];
  /** llm-limiter on the single server, each run just after the Cluster run of as many processes. */
  readonly clusterSingleRows: readonly ThroughputRow[];
  readonly boundMs: number;
  readonly binding: RequestBudget;
  readonly requests: number;
  readonly processes: number;
}

const WHAT: Record<Library, string> = {
  "llm-limiter": "`acquire(200)` → `release()` (RPM + TPM)",
  "llm-limiter-settle": "`run(200, fn)`, fn reports `used: 120` (RPM + TPM, settled)",
  "llm-limiter-rpm": "`acquire(200)` → `release()` (RPM only: one budget)",
  "llm-limiter-at-once": "`acquire(200)` → `release()` (RPM + TPM), `arrivalDelayMs: 0`",
  "rate-limiter-flexible": "`RateLimiterRedis.consume(key)`",
};

const MAKESPAN_TARGET = 1.05;
const met = (ok: boolean): string => (ok ? "met" : "NOT met");
const fixed = (n: number, digits = 2): string => n.toFixed(digits);

/** `library`'s admissions per second from `processes` processes among `rows` (NaN if it did not run). */
function perSecond(rows: readonly ThroughputRow[], library: Library, processes: number): number {
  return rows.find((row) => row.library === library && row.processes === processes)?.perSecond ?? NaN;
}

/** What a table's admissions per second are divided by: a row of the same library and processes elsewhere. */
interface Baseline {
  readonly name: string;
  readonly rows: readonly ThroughputRow[];
  readonly library?: Library;
}

/** Admissions per second and their costs, beside `baseline`'s (rate-limiter-flexible's) with as many processes. */
function throughputTable(rows: readonly ThroughputRow[], baseline?: Baseline): string {
  const against = baseline ?? { name: "rate-limiter-flexible", rows, library: "rate-limiter-flexible" };
  return markdownTable(
    [
      "library",
      "an admission is",
      "processes",
      "admissions/s",
      `÷ ${against.name}`,
      "round trips",
      "commands Redis ran",
    ],
    ["left", "left", "right", "right", "right", "right", "right"],
    rows.map((row) => [
      row.library,
      WHAT[row.library],
      String(row.processes),
      whole(row.perSecond),
      ratio(row.ratio ?? row.perSecond / perSecond(against.rows, against.library ?? row.library, row.processes)),
      fixed(row.roundTrips),
      fixed(row.serverCommands),
    ]),
  );
}

/** The one-caller rounds: how they ran, every round's ratio, and the median rounds' table. */
export function oneCallerSection(uncontended: UncontendedRows, durationMs: number): string {
  const rounds = uncontended.ratios.get("llm-limiter")?.length ?? 0;
  const ratios = [...uncontended.ratios].map(([library, xs]) => `${library}: ${xs.map((x) => ratio(x)).join(", ")}`);
  return `One caller, awaiting one admission after another for ${fixed(durationMs / 1_000, 1)} s: nothing is ever queued behind it.
${rounds} rounds, each running every library in fresh processes, one after the other (the order reversed
from round to round); the table shows each library's median round, and the ratio is the median of the
rounds' ratios (${ratios.join("; ")}).

${throughputTable(uncontended.rows)}`;
}

/** The many-callers rows: how they ran, and their table. */
export function callersSection(
  rows: readonly ThroughputRow[],
  callers: number,
  rounds: number,
  durationMs: number,
): string {
  return `Each process runs ${callers} async loops, each awaiting one admission after another, for ${fixed(durationMs / 1_000, 1)} s; with several
processes they share one key. Best of ${rounds} runs, interleaved across libraries. llm-limiter books the
head of each process's queue and the waiters behind it in one script call (strict FIFO: those
that fit are admitted in order, the first that does not is booked for later and ends the batch),
so a round trip admits every call that queued while the previous one was on its way;
rate-limiter-flexible has no queue and pipelines every caller's \`consume\`.

${throughputTable(rows)}`;
}

export function report(r: Results): string {
  const flexibleMakespan = r.makespanRows.find((row) => row.library === "rate-limiter-flexible")?.makespanMs ?? NaN;
  const makespan = markdownTable(
    [
      "library",
      "makespan",
      "÷ bound",
      "÷ rate-limiter-flexible",
      "round trips",
      "commands Redis ran",
      "bucket replay: rejected",
      "earliest",
    ],
    ["left", "right", "right", "right", "right", "right", "right", "right"],
    r.makespanRows.map((row) => [
      row.library,
      `${fixed(row.makespanMs / 1_000)} s`,
      ratio(row.makespanMs / r.boundMs),
      ratio(row.makespanMs / flexibleMakespan),
      fixed(row.roundTrips),
      fixed(row.serverCommands),
      String(row.provider.rejected),
      row.provider.earliestMs > 0 ? `${fixed(row.provider.earliestMs, 1)} ms early` : "never early",
    ]),
  );

  const ours = r.uncontended.rows.find((row) => row.library === "llm-limiter");
  const uncontended = ours?.roundTrips ?? NaN;
  const alone = ours?.ratio ?? NaN;
  const rounds = r.uncontended.ratios.get("llm-limiter")?.length ?? 0;
  const ourMakespan = r.makespanRows.find((row) => row.library === "llm-limiter")?.makespanMs ?? NaN;
  const atOnceMakespan = r.makespanRows.find((row) => row.library === "llm-limiter-at-once")?.makespanMs ?? NaN;
  const heldBound = r.boundMs + DEFAULT_ARRIVAL_DELAY_MS;
  const faster = [1, 4].map(
    (p) => perSecond(r.throughputRows, "llm-limiter", p) / perSecond(r.throughputRows, "rate-limiter-flexible", p),
  );
  const cpus = os.cpus();
  const refillPerSecond = (r.binding.limit * 1_000) / r.binding.windowMs;

  return `# Redis store: llm-limiter beside rate-limiter-flexible

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} cores · ${os.platform()} ${os.arch()} · redis-server on 127.0.0.1

## Admissions per second, on a budget that never binds

Per admission: round trips are the commands the clients sent (counted in each process's ioredis);
commands Redis ran are \`INFO commandstats\` over the run, the calls inside scripts included. Each
run follows a 1 s warm-up on a key of its own, in fresh processes.

${oneCallerSection(r.uncontended, r.durationMs)}

${callersSection(r.throughputRows, r.callers, r.rounds, r.durationMs)}

## Makespan of ${whole(r.requests)} requests from ${r.processes} processes on one budget that binds

${r.binding.limit} requests per ${fixed(r.binding.windowMs / 1_000, 0)} s (llm-limiter: a bucket of ${r.binding.limit}, refilled at ${refillPerSecond}/s;
rate-limiter-flexible: a fixed window of ${r.binding.limit} points per ${fixed(r.binding.windowMs / 1_000, 0)} s, waiting \`msBeforeNext\` after a
rejection and trying again). Every process asks for its ${whole(r.requests / r.processes)} at once; the makespan runs from
"go" to the last admission. The bound is the earliest the last one can be admitted, (N − C) / r =
${fixed(r.boundMs / 1_000, 1)} s. The replay takes every admission time as an arrival at a provider whose bucket of
the same budget is full at "go": how many it would reject (more than 1 ms early: the times come from
${r.processes} processes' clocks), and how early the earliest came. llm-limiter books against its bucket in
Redis, which starts at the first booking; a provider's is anchored by the first arrival. When the
first admissions reach the provider later after their booking than the steady ones do (here each
process queues its ${whole(r.requests / r.processes)} first, so its first admissions are handled late), the steady ones arrive
early by up to that difference. With the default \`arrivalDelayMs\` (${whole(DEFAULT_ARRIVAL_DELAY_MS)} ms), the first draws from the full
bucket hold its refill back that long, once, in case the provider's bucket sits full until they reach it: the
makespan's floor is then the bound plus ${fixed(DEFAULT_ARRIVAL_DELAY_MS / 1_000, 1)} s. The \`arrivalDelayMs: 0\` row is a service whose calls reach the
provider as they are admitted, as the replay has them.

${makespan}

## Through a Redis Cluster

The same admissions (${r.callers} loops per process, ${fixed(r.durationMs / 1_000, 1)} s, one key) through an ioredis \`Cluster\` on a
Redis Cluster the benchmark starts on this host (three primaries, one replica each). The key's
state sits in one slot (one hash tag), so one primary serves it; commands Redis ran are summed over
the primaries. Each run is followed by one on the single server, so that both see the same
neighbours (the single server: ${r.clusterSingleRows.map((row) => `${whole(row.perSecond)}/s from ${row.processes} process${row.processes === 1 ? "" : "es"}`).join(", ")}); best of ${r.rounds} runs each:
reported, not targeted.

${throughputTable(r.clusterRows, { name: "one server", rows: r.clusterSingleRows })}

## Targets

- One round trip per uncontended admission: ${fixed(uncontended)} per \`acquire\` from one caller (${met(uncontended <= 1.01)}).
- One caller at a time, at least rate-limiter-flexible's admissions/s: a median ratio of ${ratio(alone)} over ${rounds} rounds (${met(alone >= 1)}).
- Multi-process makespan within 5% of the bound with \`arrivalDelayMs: 0\`: ${ratio(atOnceMakespan / r.boundMs)} (${met(atOnceMakespan / r.boundMs <= MAKESPAN_TARGET)}); with the default, within 5% of the bound plus its ${fixed(DEFAULT_ARRIVAL_DELAY_MS / 1_000, 1)} s: ${ratio(ourMakespan / heldBound)} (${met(ourMakespan / heldBound <= MAKESPAN_TARGET)}).
- At least 1.5x rate-limiter-flexible's admissions/s from 32 callers: ${faster.map((f) => ratio(f)).join(" (1 process), ")} (4 processes) (${met(faster.every((f) => f >= 1.5))}); makespan with \`arrivalDelayMs: 0\` ${fixed(atOnceMakespan / 1_000)} s against its ${fixed(flexibleMakespan / 1_000)} s (${met(atOnceMakespan <= flexibleMakespan)}).`;
}
