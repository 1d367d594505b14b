/**
 * 429s and makespan of an 800-call burst under a loaded event loop, on real time: the simulator in its own
 * process over HTTP (rpm 600, each call delayed 0–300 ms on its way and answered in 0–300 ms), three CPU-bound busy
 * loops in their own processes beside it, and each run in a fresh process of its own sending every call at once
 * through one limiter with the real `openai` SDK: through `limiter.fetch()` and through the README's manual form
 * (`limiter.run` + `reservation.sync`), with `provider: "openai"` given and detected. The bound is the time the
 * provider's rpm allows: a full bucket of 600, then 10 calls a second. Prints markdown, with the commit and the load
 * average at each run (the machine may be shared), and appends it to bench/results/event-loop.md. About 4 minutes.
 *
 *   npm run bench:lag [-- --runs N] [--busy N] [--form fetch|run] [--label text]
 */
import { execSync, fork, spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { LagJob, LagReport, SimulatorSetup } from "./event-loop/messages.js";

const args = process.argv.slice(2);
const SIMULATOR = fileURLToPath(new URL("./event-loop/simulator.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./event-loop/worker.ts", import.meta.url));
const RESULTS = fileURLToPath(new URL("./results/event-loop.md", import.meta.url));
const CALLS = 800;
const RPM = 600;
/** Far above what 800 calls draw: tokens never bind, the rpm does. */
const TPM = 10_000_000;
const NETWORK_MS = 300;
const BUSY_LOOPS = Number(valueOf("--busy") ?? 3);
/** 600 at once from the full bucket, then the other 200 at 10 a second. */
const BOUND_MS = ((CALLS - RPM) / RPM) * 60_000;
const TARGET = 1.1;
const CASES = [
  { form: "fetch", providerGiven: true },
  { form: "fetch", providerGiven: false },
  { form: "run", providerGiven: true },
  { form: "run", providerGiven: false },
] as const;

const runs = Number(valueOf("--runs") ?? 2);
const label = valueOf("--label") ?? "";
/** `--form fetch` or `--form run`: that form alone. */
const onlyForm = valueOf("--form");

function valueOf(flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args[at + 1];
}

function forkTs(file: string, arg: unknown): ChildProcess {
  return fork(file, [JSON.stringify(arg)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(message as T));
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before answering`)));
  });
}

interface Row {
  readonly form: string;
  readonly provider: string;
  readonly run: number;
  readonly rejected: number;
  /** When each 429 was decided, ms from the first call's send. */
  readonly rejectedAtMs: readonly number[];
  readonly failed: number;
  readonly makespanMs: number;
  readonly cpuMs: number;
  readonly widestAllowanceMs: number | undefined;
  readonly errors: readonly string[];
  readonly load: string;
}

async function runOnce(form: "fetch" | "run", providerGiven: boolean, seed: number): Promise<Omit<Row, "run">> {
  const setup: SimulatorSetup = { rpm: RPM, tpm: TPM, seed, networkMs: NETWORK_MS };
  const simulator = forkTs(SIMULATOR, setup);
  try {
    const { url } = await nextMessage<{ url: string }>(simulator);
    const load = loadavg()[0]!.toFixed(1);
    const job: LagJob = { url, calls: CALLS, rpm: RPM, tpm: TPM, form, providerGiven };
    const worker = forkTs(WORKER, job);
    const report = await nextMessage<LagReport>(worker);
    const answer = nextMessage<{ stats: { rejected: number; rejectedAtMs: readonly number[] } }>(simulator);
    simulator.send("stats");
    const { stats } = await answer;
    return {
      form: form === "fetch" ? "`limiter.fetch()`" : "`run` + `sync`",
      provider: providerGiven ? "given" : "detected",
      rejected: stats.rejected,
      rejectedAtMs: stats.rejectedAtMs,
      failed: report.failed,
      makespanMs: report.makespanMs,
      cpuMs: report.cpuMs,
      widestAllowanceMs: report.widestAllowanceMs,
      errors: report.errors,
      load,
    };
  } finally {
    simulator.send("close");
  }
}

const busy = Array.from({ length: BUSY_LOOPS }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const rows: Row[] = [];
try {
  // Let the busy loops take their cores before the first run.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  for (let run = 1; run <= runs; run++) {
    for (const { form, providerGiven } of CASES) {
      if (onlyForm !== undefined && form !== onlyForm) continue;
      const row = { ...(await runOnce(form, providerGiven, run)), run };
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  }
} finally {
  for (const child of busy) child.kill();
}

const commit = execSync("git rev-parse --short HEAD").toString().trim();
const dirty = execSync("git status --porcelain src").toString().trim() === "" ? "" : " (with uncommitted changes)";
const lines = [
  "",
  `## ${new Date().toISOString().slice(0, 16)}Z, commit \`${commit}\`${dirty}${label ? `: ${label}` : ""}`,
  "",
  `${CALLS} calls at once, rpm ${RPM}, network 0–${NETWORK_MS} ms each way, ${BUSY_LOOPS} busy loops; ` +
    `bound ${(BOUND_MS / 1000).toFixed(1)} s, target ≤ ${((BOUND_MS * TARGET) / 1000).toFixed(1)} s and 0 429s.`,
  "",
  "| form | provider | run | 429s | failed | makespan | ÷ bound | CPU used | widest allowance | load average (1 min) |",
  "| --- | --- | --: | --: | --: | --: | --: | --: | --: | --: |",
  ...rows.map(
    (r) =>
      `| ${r.form} | ${r.provider} | ${r.run} | ${r.rejected} | ${r.failed} | ${(r.makespanMs / 1000).toFixed(2)} s | ` +
      `${(r.makespanMs / BOUND_MS).toFixed(3)} | ${(r.cpuMs / 1000).toFixed(1)} s | ${r.widestAllowanceMs === undefined ? "—" : `${Math.round(r.widestAllowanceMs)} ms`} | ${r.load} |`,
  ),
  "",
];
console.log(lines.join("\n"));
appendFileSync(RESULTS, lines.join("\n"));
