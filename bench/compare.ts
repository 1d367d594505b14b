/**
 * The overhead bench of two trees, interleaved: `npm run bench` in the "before" tree and in this one (or `--after`),
 * alternately, `--rounds` times each (5 by default), the order swapped every round. Reads llm-limiter's calls/s, its
 * lead on the fastest peer, its calls per CPU-second and its heap bytes per queued waiter from each run's markdown, and
 * writes the rounds, the medians and after ÷ before to bench/results/restructure.md (or `--out`).
 *
 *   npm run bench:compare -- --before /work/wt-before [--after DIR] [--rounds 5] [--out FILE]
 *
 * Each tree runs its own `bench` script, whatever it is, with its own node_modules. A tree's bench/results/ is put
 * back as it was after each of its runs, so comparing leaves no overhead.md behind in either tree.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./measure.js";
import { markdownTable, ratio, whole, type Align } from "./table.js";

/** The figures issue 10 holds to "within 5% of before". */
interface Figures {
  /** llm-limiter's calls per second (median of the bench's rounds). */
  readonly callsPerSecond: number;
  /** llm-limiter's calls/s over the fastest peer's. */
  readonly lead: number;
  /** Per second of the bench process's CPU time: moves less than calls/s with the neighbours' load on shared cores. */
  readonly callsPerCpuSecond: number;
  /** Heap bytes per queued `acquire`. */
  readonly bytesPerWaiter: number;
}

type Side = "before" | "after";

const TARGET = 0.05;

const { values: args } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string", default: fileURLToPath(new URL("..", import.meta.url)) },
    rounds: { type: "string", default: "5" },
    out: { type: "string", default: fileURLToPath(new URL("./results/restructure.md", import.meta.url)) },
  },
});
const rounds = Number(args.rounds);
if (!args.before || !Number.isInteger(rounds) || rounds < 1)
  throw new Error("usage: npm run bench:compare -- --before <dir> [--after <dir>] [--rounds 5] [--out <file>]");
const trees: Record<Side, string> = { before: path.resolve(args.before), after: path.resolve(args.after) };
for (const dir of Object.values(trees))
  if (!existsSync(path.join(dir, "node_modules"))) throw new Error(`${dir} has no node_modules: run npm ci there`);

/** Every file under `dir` (relative path → content); empty if there is no `dir`. */
function snapshot(dir: string): Map<string, Buffer> {
  if (!existsSync(dir)) return new Map();
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return new Map(
    files.map((file) => {
      const full = path.join(file.parentPath, file.name);
      return [path.relative(dir, full), readFileSync(full)];
    }),
  );
}

/** Puts `dir` back as `before` had it: files written since removed, files changed rewritten. */
function restore(dir: string, before: Map<string, Buffer>): void {
  const now = snapshot(dir);
  for (const name of now.keys()) if (!before.has(name)) rmSync(path.join(dir, name));
  for (const [name, content] of before)
    if (!now.get(name)?.equals(content)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
}

/** The bench running now: an interruption stops it, and its tree's results are put back as it ends. */
let running: ChildProcess | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => (running?.pid ? process.kill(-running.pid, "SIGTERM") : process.exit(130)));

/** `npm run bench` in `tree` with this process's node first on PATH; its markdown, bench/results/ left as it was. */
async function bench(tree: string, label: string): Promise<string> {
  const results = path.join(tree, "bench", "results");
  const kept = snapshot(results);
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
  // Its own process group, so that an interruption stops npm, the shell and the bench under it.
  const child = spawn("npm", ["run", "--silent", "bench"], {
    cwd: tree,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  running = child;
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const line of chunk.split("\n")) if (line) process.stderr.write(`${label}: ${line}\n`);
  });
  try {
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve, reject) =>
      child.on("error", reject).on("close", (...end) => resolve(end)),
    );
    if (code !== 0) throw new Error(`npm run bench in ${tree} ended (${signal ?? code}):\n${stderr.slice(-2000)}`);
    return stdout;
  } finally {
    running = undefined;
    restore(results, kept);
  }
}

/** The markdown tables of `text` (runs of lines that start with `|`): header cells, and rows of cells. */
function tables(text: string): { header: string[]; rows: string[][] }[] {
  const cells = (line: string): string[] =>
    line
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((cell) => cell.trim());
  const found: { header: string[]; rows: string[][] }[] = [];
  let lines: string[] = [];
  for (const line of [...text.split("\n"), ""].map((l) => l.trim())) {
    if (line.startsWith("|")) lines.push(line);
    else {
      const [header, , ...rows] = lines;
      if (header && rows.length > 0) found.push({ header: cells(header), rows: rows.map(cells) });
      lines = [];
    }
  }
  return found;
}

/** `"2,016,009"` or `"2.33x"` → a number. */
const numberIn = (cell: string | undefined): number => Number((cell ?? "").replace(/[,x]/g, ""));

/** The row of `library` (whose cells also match `also`) in the table that has column `column`, and that column. */
function cellOf(text: string, column: string, library: string, also?: RegExp): { row: string[]; at: number } {
  for (const { header, rows } of tables(text)) {
    const at = header.indexOf(column);
    const row = rows.find((cells) => cells[0] === library && (!also || cells.some((cell) => also.test(cell))));
    if (at >= 0 && row) return { row, at };
  }
  throw new Error(`no "${column}" for ${library} in the bench's output:\n${text.slice(0, 2000)}`);
}

/** From the verdict (computed before rounding), or else 1 / the largest peer's "÷ llm-limiter" in the table. */
function leadOf(text: string): number {
  const verdict = /llm-limiter is ([\d.]+)x the fastest peer/.exec(text);
  if (verdict) return Number(verdict[1]);
  const speed = tables(text).find((table) => table.header.includes("calls/s"));
  const at = speed?.header.indexOf("÷ llm-limiter") ?? -1;
  const peers = speed?.rows.filter((cells) => cells[0] !== "llm-limiter") ?? [];
  return at < 0 || peers.length === 0 ? NaN : 1 / Math.max(...peers.map((cells) => numberIn(cells[at])));
}

function figuresOf(text: string): Figures {
  const figure = (column: string, also?: RegExp): number => {
    const { row, at } = cellOf(text, column, "llm-limiter", also);
    return numberIn(row[at]);
  };
  const figures = {
    callsPerSecond: figure("calls/s"),
    lead: leadOf(text),
    callsPerCpuSecond: figure("calls per CPU-s"),
    bytesPerWaiter: figure("heap bytes per waiter", /acquire/),
  };
  if (!Object.values(figures).every((n) => Number.isFinite(n) && n > 0))
    throw new Error(`unreadable figures ${JSON.stringify(figures)} in the bench's output:\n${text.slice(0, 2000)}`);
  return figures;
}

/** `git` in `dir`: its commit, and whether it has uncommitted changes; "?" outside a checkout. */
function revisionOf(dir: string): string {
  try {
    const git = (...argv: string[]): string =>
      execFileSync("git", ["-C", dir, ...argv], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return `\`${git("rev-parse", "--short", "HEAD")}\`${git("status", "--porcelain") ? " with uncommitted changes" : ""}`;
  } catch {
    return "?";
  }
}

const runs: Record<Side, Figures[]> = { before: [], after: [] };
const orders: Side[][] = [];
for (let round = 0; round < rounds; round++) {
  const order: Side[] = round % 2 === 0 ? ["before", "after"] : ["after", "before"];
  orders.push(order);
  for (const side of order) {
    const label = `round ${round + 1}/${rounds} ${side}`;
    const figures = figuresOf(await bench(trees[side], label));
    runs[side].push(figures);
    process.stderr.write(`${label}: ${JSON.stringify(figures)}\n`);
  }
}

/** How each figure is shown, and which way is better. */
const metrics: readonly {
  key: keyof Figures;
  name: string;
  column: string;
  show: (n: number) => string;
  higher: boolean;
}[] = [
  { key: "callsPerSecond", name: "calls/s", column: "calls/s", show: whole, higher: true },
  { key: "lead", name: "calls/s ÷ the fastest peer's", column: "÷ fastest peer", show: ratio, higher: true },
  { key: "callsPerCpuSecond", name: "calls per CPU-s", column: "per CPU-s", show: whole, higher: true },
  {
    key: "bytesPerWaiter",
    name: "heap bytes per queued `acquire`",
    column: "bytes/waiter",
    show: whole,
    higher: false,
  },
];
const medians = (side: Side): Figures => {
  const of = (key: keyof Figures): number => median(runs[side].map((figures) => figures[key]));
  return {
    callsPerSecond: of("callsPerSecond"),
    lead: of("lead"),
    callsPerCpuSecond: of("callsPerCpuSecond"),
    bytesPerWaiter: of("bytesPerWaiter"),
  };
};
const [before, after] = [medians("before"), medians("after")];
/** Each figure of `b` beside the same of `a`. */
const pair = (b: Figures, a: Figures): string[] => metrics.flatMap(({ key, show }) => [show(b[key]), show(a[key])]);

const roundsTable = markdownTable(
  ["round", "order", ...metrics.flatMap(({ column }) => [`${column} before`, "after"])],
  ["right", "left", ...metrics.flatMap((): Align[] => ["right", "right"])],
  [
    ...orders.map((order, i) => [String(i + 1), order.join(", "), ...pair(runs.before[i]!, runs.after[i]!)]),
    ["median", "", ...pair(before, after)],
  ],
);

const summary = markdownTable(
  ["llm-limiter", "before", "after", "after ÷ before", `within ${TARGET * 100}%`],
  ["left", "right", "right", "right", "left"],
  metrics.map(({ key, name, show, higher }) => {
    const change = after[key] / before[key];
    const within = higher ? change >= 1 - TARGET : change <= 1 + TARGET;
    return [name, show(before[key]), show(after[key]), change.toFixed(3), within ? "yes" : "**no**"];
  }),
);

const cpus = os.cpus();
const report = `# Overhead before and after the restructure (issue 10)

${new Date().toISOString().slice(0, 10)} · Node ${process.version} · ${cpus[0]?.model ?? "unknown CPU"} × ${cpus.length} cores · ${os.platform()} ${os.arch()} · \`npm run bench:compare\`

"Before" is ${trees.before} at ${revisionOf(trees.before)}, "after" ${trees.after} at ${revisionOf(trees.after)}.
Each round runs each tree's \`npm run bench\` once (see [overhead.md](overhead.md) for what it measures), the order
swapped every round; the figures are llm-limiter's in each run: calls/s (the median of the bench's own rounds), its
lead on the fastest peer, calls per CPU-second (which moves less with the neighbours' load on shared cores), and heap
bytes per queued \`acquire\`. Medians over ${rounds} rounds; after ÷ before divides the medians. Issue 10 asks for
within ${TARGET * 100}% of before.

${roundsTable}

${summary}
`;

process.stdout.write(report);
mkdirSync(path.dirname(args.out), { recursive: true });
writeFileSync(args.out, report);
process.stderr.write(`written to ${args.out}\n`);
