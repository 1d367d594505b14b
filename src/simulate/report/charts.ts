import { clock, int } from "../format.js";
import { SIMULATE_BUDGETS } from "../options.js";
import type { SimulationResult, SimulationRun, SimulationSample } from "../types.js";
import type { Stall } from "./stalls.js";
import type { Band, Chart, Series } from "./svg.js";

const LIMITER = "#2563eb";
const BELIEF = "#111827";
const NAIVE = "#ea580c";
const ARRIVED = "#6b7280";

type Pick = (sample: SimulationSample) => number;

const along = (run: SimulationRun, pick: Pick): [number, number][] => run.samples.map((s) => [s.t, pick(s)]);

/** What a total grew by since the sample before: per-interval counts from running totals. */
function perInterval(run: SimulationRun, pick: Pick): [number, number][] {
  return run.samples.map((s, i) => [s.t, i === 0 ? pick(s) : pick(s) - pick(run.samples[i - 1]!)]);
}

/** The run with no limiter first, faint, and the limiter's over it, so that the baseline never hides it. */
function both(result: SimulationResult, points: (run: SimulationRun) => [number, number][]): Series[] {
  return [
    { name: "no limiter", color: NAIVE, faint: true, points: points(result.naive) },
    { name: "llm-limiter", color: LIMITER, points: points(result.limiter) },
  ];
}

const percent = (v: number): string => `${Math.round(v * 100)}%`;
const seconds = (ms: number): string => `${(ms / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} s`;

/** The limiter's stalls as marks, numbered as the report's table lists them. */
export function stallBands(stalls: readonly Stall[]): Band[] {
  return stalls.map((s, i) => ({
    fromMs: s.fromMs,
    toMs: s.toMs,
    label: `stall ${i + 1}`,
    title:
      `Stall ${i + 1}, ${clock(s.fromMs, true)} to ${clock(s.toMs, true)}: llm-limiter sent nothing for ` +
      `${seconds(s.toMs - s.fromMs)} while up to ${int(s.waiting)} calls waited and the key had room for ` +
      `${int(s.room)} or more`,
  }));
}

/** The dimensions of the key and of the limiter's view, in the order budgets are listed. */
export function dimensionsOf(result: SimulationResult): string[] {
  const names = new Set(
    result.limiter.samples.flatMap((s) => [...Object.keys(s.providerLevels), ...Object.keys(s.levels)]),
  );
  const rank = (name: string): number => {
    const i = (SIMULATE_BUDGETS as readonly string[]).indexOf(name);
    return i < 0 ? SIMULATE_BUDGETS.length : i;
  };
  return [...names].sort((a, b) => rank(a) - rank(b));
}

/** One chart a dimension: the key's level in each run, and the limiter's view beside its key's. */
function levelCharts(result: SimulationResult, bands: readonly Band[]): Chart[] {
  return dimensionsOf(result).map((name) => {
    const budget = result.budgets[name as keyof SimulationResult["budgets"]];
    // Both as shares of the key's budget, so that the gap between them is the drift.
    const share = (level: number | undefined, capacity: number | undefined): number =>
      (level ?? NaN) / (budget ?? capacity ?? 1);
    const key = (run: SimulationRun): [number, number][] =>
      along(run, (s) => share(s.providerLevels[name], s.capacities[name])).filter(([, v]) => !Number.isNaN(v));
    return {
      id: `levels-${name}`,
      title:
        `${name}: what the key's bucket held, and what the limiter believed (limiter.snapshot()), ` +
        `as shares of ${budget === undefined ? "its capacity" : int(budget)}`,
      unit: "level / budget",
      series: [
        { name: "the key, no limiter", color: NAIVE, faint: true, points: key(result.naive) },
        { name: "the key, llm-limiter", color: LIMITER, points: key(result.limiter) },
        {
          name: "the limiter's view",
          color: BELIEF,
          dashed: true,
          points: along(result.limiter, (s) => share(s.levels[name], s.capacities[name])).filter(
            ([, v]) => !Number.isNaN(v),
          ),
        },
      ].filter((s) => s.points.length > 0),
      bands,
      yRange: [0, 1],
      yTick: percent,
    };
  });
}

/** Every chart of the report, in page order, the limiter's stalls marked on each. */
export function chartsOf(result: SimulationResult, stalls: readonly Stall[]): Chart[] {
  const per = `per ${seconds(result.sampleMs)}`;
  const bands = stallBands(stalls);
  return [
    ...levelCharts(result, bands),
    {
      id: "waiting",
      title: "Calls waiting: in the limiter's queue, or (no limiter) sleeping on a 429's retry-after",
      unit: "calls",
      series: both(result, (run) => along(run, (s) => s.waiting)),
      bands,
    },
    {
      id: "admissions",
      title: `Attempts sent to the provider ${per} (retries included)`,
      unit: `attempts ${per}`,
      series: both(result, (run) => perInterval(run, (s) => s.sent)),
      bands,
    },
    {
      id: "rejections",
      title: `429s the provider answered ${per}`,
      unit: `429s ${per}`,
      series: both(result, (run) => perInterval(run, (s) => s.rejected)),
      bands,
    },
    {
      id: "completed",
      title: "Calls arrived and calls served, since the start",
      unit: "calls",
      series: [
        { name: "arrived", color: ARRIVED, dashed: true, points: along(result.limiter, (s) => s.arrived) },
        ...both(result, (run) => along(run, (s) => s.served)),
      ],
      bands,
    },
  ];
}
