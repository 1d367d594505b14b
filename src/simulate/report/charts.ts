import type { SimulationResult, SimulationRun, SimulationSample } from "../types.js";
import type { Chart, Series } from "./svg.js";

const LIMITER = "#2563eb";
const NAIVE = "#ea580c";
const ARRIVED = "#6b7280";
const DIMENSION_COLORS = ["#2563eb", "#16a34a", "#9333ea", "#dc2626", "#0891b2", "#ca8a04", "#db2777"];

type Pick = (sample: SimulationSample) => number;

const along = (run: SimulationRun, pick: Pick): [number, number][] => run.samples.map((s) => [s.t, pick(s)]);

/** What a total grew by since the sample before: per-interval counts from running totals. */
function perInterval(run: SimulationRun, pick: Pick): [number, number][] {
  return run.samples.map((s, i) => [s.t, i === 0 ? pick(s) : pick(s) - pick(run.samples[i - 1]!)]);
}

function both(result: SimulationResult, points: (run: SimulationRun) => [number, number][]): Series[] {
  return [
    { name: "llm-limiter", color: LIMITER, points: points(result.limiter) },
    { name: "no limiter", color: NAIVE, points: points(result.naive) },
  ];
}

const percent = (v: number): string => `${Math.round(v * 100)}%`;

/** Every chart of the report, in page order. */
export function chartsOf(result: SimulationResult): Chart[] {
  const seconds = result.sampleMs / 1000;
  const per = `per ${seconds.toLocaleString("en-US")} s`;
  const dimensions = [...new Set(result.limiter.samples.flatMap((s) => Object.keys(s.levels)))];
  return [
    {
      id: "levels",
      title: "The limiter's bucket levels (limiter.snapshot()), as shares of each bucket",
      unit: "level / capacity",
      series: dimensions.map((name, i) => ({
        name,
        color: DIMENSION_COLORS[i % DIMENSION_COLORS.length]!,
        points: along(result.limiter, (s) => (s.levels[name] ?? 0) / (s.capacities[name] ?? 1)),
      })),
      yRange: [0, 1],
      yTick: percent,
    },
    {
      id: "waiting",
      title: "Calls waiting: in the limiter's queue, or (no limiter) sleeping on a 429's retry-after",
      unit: "calls",
      series: both(result, (run) => along(run, (s) => s.waiting)),
    },
    {
      id: "admissions",
      title: `Attempts sent to the provider ${per} (retries included)`,
      unit: `attempts ${per}`,
      series: both(result, (run) => perInterval(run, (s) => s.sent)),
    },
    {
      id: "rejections",
      title: `429s the provider answered ${per}`,
      unit: `429s ${per}`,
      series: both(result, (run) => perInterval(run, (s) => s.rejected)),
    },
    {
      id: "completed",
      title: "Calls arrived and calls served, since the start",
      unit: "calls",
      series: [
        { name: "arrived", color: ARRIVED, dashed: true, points: along(result.limiter, (s) => s.arrived) },
        ...both(result, (run) => along(run, (s) => s.served)),
      ],
    },
  ];
}
