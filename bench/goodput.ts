/**
 * Goodput: the same workloads through no limiter, five peers and llm-limiter
 * against the provider simulator, on virtual time, beside the oracle (the best
 * a FIFO client can do). Prints a table per workload and writes
 * bench/results/goodput.md (when every workload ran), keeping the records
 * below its marker. With `--headerless`, the workloads of providers that send
 * no rate-limit headers instead, written to bench/results/headerless.md.
 *
 *   npx tsx bench/goodput.ts [--headerless] [workload ids...]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { BASELINE, OURS, checkTargets, targetList, type Result } from "./goodput/targets.js";
import { contenders } from "./goodput/contenders.js";
import { runHeaderless } from "./goodput/headerless-run.js";
import { measure } from "./goodput/metrics.js";
import { oracle } from "./goodput/oracle.js";
import { keptRecords, resultsFile, workloadTable } from "./goodput/report.js";
import { simulate } from "./goodput/simulate.js";
import { workloads } from "./goodput/workloads.js";

const args = process.argv.slice(2);
if (args.includes("--headerless")) await runHeaderless(args.filter((a) => a !== "--headerless"));
else await runWorkloads(args);

/** The workloads of providers that send headers, and goodput.md. */
async function runWorkloads(only: readonly string[]): Promise<void> {
  const chosen = only.length > 0 ? workloads.filter((w) => only.includes(w.id)) : workloads;
  const started = performance.now();
  const results: Result[] = [];
  for (const workload of chosen) {
    const best = oracle(workload);
    const rows = [];
    const running =
      workload.peers === false ? contenders.filter((c) => c.library === BASELINE || c.library === OURS) : contenders;
    for (const contender of running) {
      const run = await simulate(workload, () => contender.client(workload));
      rows.push({ contender, metrics: measure(workload, run, best) });
    }
    const result = { workload, rows, oracle: best };
    results.push(result);
    console.log(`${workloadTable(result)}\n`);
  }
  const targets = checkTargets(results);
  console.log(`Targets\n\n${targetList(targets)}`);
  if (chosen.length === workloads.length) {
    const file = new URL("results/goodput.md", import.meta.url);
    const records = existsSync(file) ? keptRecords(readFileSync(file, "utf8")) : "";
    writeFileSync(file, resultsFile(results, targets, contenders, performance.now() - started, records));
    console.log(`\nwrote ${file.pathname}`);
  }
}
