import { clock, int } from "../format.js";
import type { SimulationResult, SimulationSample } from "../types.js";
import { dimensionsOf } from "./charts.js";
import { STALL_MIN_MS, STALL_ROOM, type Stall } from "./stalls.js";
import { escape } from "./svg.js";

/** Rows of the samples' table: enough to follow a run, few enough to keep the page small. */
const TABLE_ROWS = 30;

const seconds = (ms: number): string => `${(ms / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} s`;

const row = (cells: readonly string[], tag = "td"): string =>
  `<tr>${cells.map((c) => `<${tag}>${c}</${tag}>`).join("")}</tr>`;

/** The limiter's stalls, numbered as the charts mark them, or a sentence saying there were none. */
export function stallSection(stalls: readonly Stall[]): string {
  const rule =
    `A stall: for ${seconds(STALL_MIN_MS)} or more, calls waited in the limiter's queue and it sent nothing, ` +
    `while the key had room for ${STALL_ROOM} or more of them (counted as the most demanding call waiting). ` +
    `A wait while the key was spent is the budget binding, not a stall.`;
  if (stalls.length === 0) return `<h2 id="stalls">Stalls</h2>\n<p>None. <span class="note">${rule}</span></p>`;
  const rows = stalls.map((s, i) =>
    row([
      `stall ${i + 1}`,
      clock(s.fromMs, true),
      clock(s.toMs, true),
      seconds(s.toMs - s.fromMs),
      int(s.waiting),
      `${int(s.room)} or more`,
    ]),
  );
  const head = row(["", "from", "to", "lasted", "calls waiting (most)", "room at the key (calls)"], "th");
  return `<h2 id="stalls">Stalls</h2>
<p class="note">${rule}</p>
<table id="stall-table"><thead>${head}</thead><tbody>
${rows.join("\n")}
</tbody></table>`;
}

/** Every n-th sample, and the last: the charts' figures for a reader who cannot see them. */
export function samplesTable(result: SimulationResult): string {
  const { limiter, naive } = result;
  const step = Math.max(1, Math.ceil(limiter.samples.length / TABLE_ROWS));
  const dimensions = dimensionsOf(result);
  const level = (s: SimulationSample | undefined, read: (s: SimulationSample) => number | undefined): string => {
    const value = s === undefined ? undefined : read(s);
    return value === undefined ? "" : int(value);
  };
  const head = row(
    [
      "time",
      "arrived",
      ...["llm-limiter", "no limiter"].flatMap((run) => [`${run}: sent`, "429s", "served", "waiting"]),
      ...dimensions.flatMap((d) => [`${d}: the key (llm-limiter)`, "limiter's view"]),
    ],
    "th",
  );
  const rows: string[] = [];
  const last = Math.max(limiter.samples.length, naive.samples.length) - 1;
  for (let i = 0; i <= last; i = i === last ? last + 1 : Math.min(last, i + step)) {
    const l = limiter.samples[i];
    const n = naive.samples[i];
    const counts = (s: SimulationSample | undefined): string[] =>
      s === undefined ? ["", "", "", ""] : [s.sent, s.rejected, s.served, s.waiting].map(int);
    rows.push(
      row([
        clock((l ?? n)!.t, true),
        int((l ?? n)!.arrived),
        ...counts(l),
        ...counts(n),
        ...dimensions.flatMap((d) => [level(l, (s) => s.providerLevels[d]), level(l, (s) => s.levels[d])]),
      ]),
    );
  }
  return `<details id="samples"><summary>The runs as a table (every ${escape(seconds(step * result.sampleMs))}; levels in units)</summary>
<table><thead>${head}</thead><tbody>
${rows.join("\n")}
</tbody></table></details>`;
}
