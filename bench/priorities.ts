/**
 * Priorities and tenants on virtual time: (a) background work saturating TPM
 * while interactive calls arrive steadily, (b) one tenant's burst of 1,000
 * calls beside a quiet tenant. Each runs as configured and, for contrast, with
 * every call in one class and no tenant (plain FIFO). Prints the targets
 * against what was measured and writes bench/results/priorities.md.
 *
 *   npx tsx bench/priorities.ts   (npm run bench:priorities)
 */
import { writeFileSync } from "node:fs";
import { onVirtualTime } from "../src/simulate/virtual-time.js";
import { Limiter, type LimiterOptions } from "../src/index.js";
import { sleep } from "./goodput/retry.js";
import { markdownTable, whole } from "./table.js";

const TPM = 100_000;
const RPM = 1_000;
const MINUTE = 60_000;
/** How long an admitted call runs before it is released. */
const LATENCY_MS = 2_000;
/** Makespan at most this much over the quota's bound. */
const MAKESPAN_SLACK = 0.05;

/** One kind of call in a workload: `count` calls of `tokens`, the first at `startMs`, then one every `everyMs`. */
interface Stream {
  readonly name: string;
  readonly count: number;
  readonly tokens: number;
  readonly everyMs: number;
  readonly priority?: string;
  readonly tenant?: string;
  /** Whether its wait has a target (the calls that must not wait behind the others). */
  readonly watched: boolean;
}

interface Workload {
  readonly id: string;
  readonly title: string;
  readonly options: LimiterOptions;
  readonly streams: readonly Stream[];
}

const workloads: readonly Workload[] = [
  {
    id: "a",
    title: "background saturating TPM, interactive calls arriving steadily",
    options: { priorities: ["interactive", "default", "background"], headroom: { background: 0.2 } },
    streams: [
      { name: "background", count: 600, tokens: 2_000, everyMs: 0, priority: "background", watched: false },
      // 10% of the rate: well below what the reserve (20% of the capacity) refills.
      { name: "interactive", count: 120, tokens: 1_000, everyMs: 6_000, priority: "interactive", watched: true },
    ],
  },
  {
    id: "b",
    title: "two tenants, one with a burst of 1,000 calls",
    options: {},
    streams: [
      { name: "burst", count: 1_000, tokens: 2_000, everyMs: 0, tenant: "noisy", watched: false },
      { name: "quiet", count: 190, tokens: 1_000, everyMs: 6_000, tenant: "quiet", watched: true },
    ],
  },
];

interface Measured {
  readonly p99WaitMs: number;
  readonly maxWaitMs: number;
  readonly makespanMs: number;
  readonly boundMs: number;
}

/** The `q` quantile of `values` (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/**
 * Runs `workload` on a fresh limiter (full buckets), with its priorities and
 * tenants or, `plain`, without either; measures the watched calls' admission
 * waits and the time until the last call is admitted.
 */
function run(workload: Workload, plain: boolean): Promise<Measured> {
  return onVirtualTime(
    () => ({
      done: (async () => {
        const limiter = new Limiter({ tpm: TPM, rpm: RPM, initial: "full", ...(plain ? {} : workload.options) });
        const start = performance.now();
        const waits: number[] = [];
        let lastAdmission = 0;
        const calls: Promise<void>[] = [];
        const send = (stream: Stream): void => {
          const arrived = performance.now();
          const options = plain ? {} : { priority: stream.priority, tenant: stream.tenant };
          calls.push(
            limiter.run(
              stream.tokens,
              async () => {
                const admitted = performance.now();
                lastAdmission = Math.max(lastAdmission, admitted - start);
                if (stream.watched) waits.push(admitted - arrived);
                await sleep(LATENCY_MS);
                return { value: undefined };
              },
              options,
            ),
          );
        };
        const arrivals = workload.streams.map(async (stream) => {
          for (let i = 0; i < stream.count; i++) {
            if (i > 0 && stream.everyMs > 0) await sleep(stream.everyMs);
            send(stream);
          }
        });
        await Promise.all(arrivals);
        await Promise.all(calls);
        // The quota's bound: every token and request admitted, a full bucket first, then at the refill rate.
        const tokens = workload.streams.reduce((sum, s) => sum + s.count * s.tokens, 0);
        const requests = workload.streams.reduce((sum, s) => sum + s.count, 0);
        const lastArrival = Math.max(...workload.streams.map((s) => (s.count - 1) * s.everyMs));
        const boundMs = Math.max(((tokens - TPM) * MINUTE) / TPM, ((requests - RPM) * MINUTE) / RPM, lastArrival);
        return { p99WaitMs: quantile(waits, 0.99), maxWaitMs: Math.max(...waits), makespanMs: lastAdmission, boundMs };
      })(),
    }),
    1_000,
    6 * 3_600_000,
  );
}

/** A watched call's wait target: the longest any dimension takes to refill its cost. */
function waitTarget(workload: Workload): number {
  const watched = workload.streams.find((s) => s.watched)!;
  return Math.max((watched.tokens * MINUTE) / TPM, MINUTE / RPM);
}

const seconds = (ms: number): string => `${(ms / 1_000).toFixed(ms < 10_000 ? 2 : 1)} s`;

const rows: string[][] = [];
const sections: string[] = [];
let allMet = true;
for (const workload of workloads) {
  const ours = await run(workload, false);
  const fifo = await run(workload, true);
  const target = waitTarget(workload);
  const watched = workload.streams.find((s) => s.watched)!.name;
  const waitMet = ours.p99WaitMs <= target;
  const makespanMet = ours.makespanMs <= ours.boundMs * (1 + MAKESPAN_SLACK);
  allMet &&= waitMet && makespanMet;
  rows.push(
    [`(${workload.id}) ${watched} p99 wait`, `≤ ${seconds(target)}`, seconds(ours.p99WaitMs), seconds(fifo.p99WaitMs)],
    [
      `(${workload.id}) makespan`,
      `≤ ${seconds(ours.boundMs * (1 + MAKESPAN_SLACK))} (bound ${seconds(ours.boundMs)} + 5%)`,
      seconds(ours.makespanMs),
      seconds(fifo.makespanMs),
    ],
  );
  rows.at(-2)!.push(waitMet ? "met" : "**missed**");
  rows.at(-1)!.push(makespanMet ? "met" : "**missed**");
  const streams = workload.streams
    .map(
      (s) =>
        `${whole(s.count)} × ${whole(s.tokens)} tokens (${s.name}${s.everyMs ? `, one every ${s.everyMs / 1_000} s` : ", at once"})`,
    )
    .join("; ");
  sections.push(
    `- (${workload.id}) ${workload.title}: ${streams}. Options: \`${JSON.stringify(workload.options)}\`; ${watched}'s longest wait ${seconds(ours.maxWaitMs)}.`,
  );
}

const table = markdownTable(
  ["measure", "target", "llm-limiter", "one FIFO (no priority, no tenant)", ""],
  ["left", "left", "right", "right", "left"],
  rows,
);
const file = `# Priorities and tenants

\`npm run bench:priorities\` (bench/priorities.ts), on virtual time: a limiter with
${whole(TPM)} TPM and ${whole(RPM)} RPM, full at start; each call runs ${LATENCY_MS / 1_000} s after admission.
The wait target is the longest any dimension takes to refill the watched call's cost; the makespan
(until the last admission) is held to the quota's bound, (all tokens − capacity) / rate, plus 5%.
The same workload with every call in one class and no tenant is shown for contrast.

${sections.join("\n")}

${table}
`;
console.log(file);
writeFileSync(new URL("results/priorities.md", import.meta.url), file);
console.log(`wrote bench/results/priorities.md${allMet ? "" : " (a target was missed)"}`);
