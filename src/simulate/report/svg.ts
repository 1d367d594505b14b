import { clock } from "../format.js";

/** One line of a chart: a name for the legend, a colour, and its points (x in ms, y in the chart's unit). */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
  /** Drawn dashed: a reference line, or a belief beside the measurement. */
  readonly dashed?: boolean;
  /** Drawn thinner and lighter: the baseline that the lines drawn after it are read against. */
  readonly faint?: boolean;
}

/** A span of time marked across the plot, labelled above it: a stall. */
export interface Band {
  readonly fromMs: number;
  readonly toMs: number;
  /** A short label drawn above the span. */
  readonly label: string;
  /** What the span means, as the title text a pointer or a screen reader gets. */
  readonly title: string;
}

/** A line chart over time. */
export interface Chart {
  /** The id of the figure, unique in the page. */
  readonly id: string;
  readonly title: string;
  /** What the y axis counts. */
  readonly unit: string;
  /** Drawn in this order, each over the ones before it. */
  readonly series: readonly Series[];
  /** Spans marked behind the lines. */
  readonly bands?: readonly Band[];
  /** The y range always shown (the data may widen it). */
  readonly yRange?: readonly [number, number];
  /** How y ticks print. */
  readonly yTick?: (value: number) => string;
}

const WIDTH = 760;
const HEIGHT = 260;
const PAD = { left: 64, right: 16, top: 22, bottom: 32 } as const;
const TICKS = 5;

/** Escapes text for XML and HTML, attribute values included. */
export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `TICKS` parts. */
function niceStep(span: number): number {
  const raw = span / TICKS;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((m) => m * power >= raw)!;
  return step * power;
}

/** Tick values from the first multiple of `step` at or above `min` to `max`. */
function ticks(min: number, max: number, step: number): number[] {
  const values: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step / 1e6; v += step) values.push(Number(v.toFixed(10)));
  return values;
}

/** Most labels on the time axis. */
const TIME_TICKS = 8;

/** A round step in ms for the time axis: whole seconds, minutes, hours or days. */
function timeStep(spanMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];
  const fits = (seconds: number): boolean => seconds * 1000 * TIME_TICKS >= spanMs;
  return 1000 * (steps.find(fits) ?? Math.ceil(spanMs / TIME_TICKS / 86_400_000) * 86400);
}

/** A series in words, for its title text: its name, its range and where it ended. */
function describe(series: Series, tick: (value: number) => string): string {
  const ys = series.points.map(([, v]) => v);
  if (ys.length === 0) return `${series.name}: no samples`;
  const [min, max] = [Math.min(...ys), Math.max(...ys)].map(tick);
  return `${series.name}: from ${min} to ${max}, ${tick(ys.at(-1)!)} at the end`;
}

/** A self-contained `<figure>` with the chart as inline SVG and its legend. */
export function lineChart(chart: Chart): string {
  const all = chart.series.flatMap((s) => s.points);
  const bands = chart.bands ?? [];
  const xMax = Math.max(1, ...all.map(([x]) => x), ...bands.map((b) => b.toMs));
  const ys = all.map(([, y]) => y);
  let yMin = Math.min(chart.yRange?.[0] ?? 0, ...ys);
  let yMax = Math.max(chart.yRange?.[1] ?? 1, ...ys);
  if (yMax === yMin) yMax = yMin + 1;
  const yStep = niceStep(yMax - yMin);
  yMin = Math.floor(yMin / yStep) * yStep;
  yMax = Math.ceil(yMax / yStep) * yStep;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (v: number): string => (PAD.left + (v / xMax) * plotW).toFixed(1);
  const y = (v: number): string => (PAD.top + plotH - ((v - yMin) / (yMax - yMin)) * plotH).toFixed(1);
  const yTick = chart.yTick ?? ((v: number) => v.toLocaleString("en-US"));
  const grid = ticks(yMin, yMax, yStep)
    .map(
      (v) =>
        `<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}"/>` +
        `<text class="tick" x="${PAD.left - 6}" y="${y(v)}" text-anchor="end" dominant-baseline="middle">${escape(yTick(v))}</text>`,
    )
    .join("");
  const xTicks = ticks(0, xMax, timeStep(xMax))
    .map(
      (v) =>
        `<line class="axis" x1="${x(v)}" x2="${x(v)}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 4}"/>` +
        `<text class="tick" x="${x(v)}" y="${PAD.top + plotH + 18}" text-anchor="middle">${clock(v)}</text>`,
    )
    .join("");
  const marks = bands
    .map((b, i) => {
      const left = Number(x(b.fromMs));
      const width = Math.max(2, Number(x(b.toMs)) - left).toFixed(1);
      return (
        `<g class="band"><title>${escape(b.title)}</title>` +
        `<rect x="${left.toFixed(1)}" y="${PAD.top}" width="${width}" height="${plotH}"/>` +
        // Staggered, so that the labels of stalls close together stay apart.
        `<text x="${(left + 3).toFixed(1)}" y="${PAD.top + 12 + (i % 3) * 13}">${escape(b.label)}</text></g>`
      );
    })
    .join("");
  const lines = chart.series
    .map((s) => {
      const xy = s.points.map(([px, py]) => [x(px), y(py)] as const);
      // A flat stretch needs its ends only: the page stays small however long the run.
      const points = xy
        .filter(([, py], i) => i === 0 || i === xy.length - 1 || py !== xy[i - 1]![1] || py !== xy[i + 1]![1])
        .map(([px, py]) => `${px},${py}`)
        .join(" ");
      const dash = s.dashed ? ` stroke-dasharray="5 4"` : "";
      const style = s.faint ? `stroke-width="1.4" stroke-opacity="0.75"` : `stroke-width="2"`;
      return `<polyline class="series" data-series="${escape(s.name)}" fill="none" stroke="${s.color}" ${style}${dash} points="${points}"><title>${escape(describe(s, yTick))}</title></polyline>`;
    })
    .join("");
  const legend = chart.series
    .map((s) => {
      const swatch = s.dashed
        ? `border-top: 2px dashed ${s.color}; height: 0; vertical-align: 3px`
        : `background:${s.color}`;
      return `<li><span class="swatch" style="${swatch}"></span>${escape(s.name)}</li>`;
    })
    .join("");
  const bandKey = bands.length === 0 ? "" : `<li><span class="swatch band-key"></span>a stall (listed above)</li>`;
  const id = escape(chart.id);
  const summary = [...chart.series.map((s) => describe(s, yTick)), ...bands.map((b) => b.title)].join(". ");
  return `<figure class="chart" id="${id}">
<figcaption id="${id}-title">${escape(chart.title)}</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc">
<desc id="${id}-desc">${escape(summary)}.</desc>
<text class="unit" x="${PAD.left}" y="${PAD.top - 10}">${escape(chart.unit)}</text>
${grid}
<line class="axis" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}"/>
${xTicks}
${marks}
${lines}
</svg>
<ul class="legend">${legend}${bandKey}</ul>
</figure>`;
}
