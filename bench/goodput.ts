/**
 * Goodput: the same workloads through no limiter, five peers and llm-limiter
 * against the provider simulator, on virtual time, beside the oracle (the best
 * a FIFO client can do). Prints a table per workload
 * and writes bench/results/goodput.md (when every workload ran).
 *
 *   npx tsx bench/goodput.ts [workload ids...]
 */
import { writeFileSync } from "node:fs";
import { contenders } from "./goodput/contenders.js";
import { measure } from "./goodput/metrics.js";
import { checkTargets, resultsFile, targetList, workloadTable, type Result } from "./goodput/report.js";
import { oracleMakespanMs } from "./goodput/oracle.js";
import { simulate } from "./goodput/simulate.js";
import { workloads } from "./goodput/workloads.js";

const only = process.argv.slice(2);
const chosen = only.length > 0 ? workloads.filter((w) => only.includes(w.id)) : workloads;
const started = performance.now();
const results: Result[] = [];
for (const workload of chosen) {
  const rows = [];
  for (const contender of contenders) {
    const run = await simulate(workload, () => contender.client(workload.told, workload.provider.dialect));
    rows.push({ contender, metrics: measure(workload, run) });
  }
  const result = { workload, rows, oracleMs: oracleMakespanMs(workload) };
  results.push(result);
  console.log(`${workloadTable(result)}\n`);
}
const targets = checkTargets(results);
console.log(`Targets\n\n${targetList(targets)}`);
if (chosen.length === workloads.length) {
  const file = new URL("results/goodput.md", import.meta.url);
  writeFileSync(file, resultsFile(results, targets, contenders, performance.now() - started));
  console.log(`\nwrote ${file.pathname}`);
}
