/** Runs the headerless workloads (issue 25), prints their tables, and writes bench/results/headerless.md. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { contenders, fixedConcurrency, type Contender } from "./contenders.js";
import { headerlessWorkloads } from "./headerless-workloads.js";
import { headerlessFile, rateTargets, serverTable, serverTargets, type ServerResult } from "./headerless-report.js";
import { measure } from "./metrics.js";
import { oracle } from "./oracle.js";
import { RECORDS_MARKER, keptRecords, workloadTable } from "./report.js";
import { measureServer } from "./server-metrics.js";
import { simulate } from "./simulate.js";
import { BASELINE, OURS, targetList, type Result } from "./targets.js";

export async function runHeaderless(only: readonly string[]): Promise<void> {
  const chosen = only.length > 0 ? headerlessWorkloads.filter((w) => only.includes(w.id)) : headerlessWorkloads;
  const started = performance.now();
  const rates: Result[] = [];
  const servers: ServerResult[] = [];
  const swept = new Map<number, Contender>();
  for (const workload of chosen) {
    const running =
      workload.peers === false ? contenders.filter((c) => c.library === BASELINE || c.library === OURS) : contenders;
    if (workload.sweep) {
      const sweep = workload.sweep.map((size) => swept.get(size) ?? swept.set(size, fixedConcurrency(size)).get(size)!);
      const rows = [];
      for (const contender of [...running, ...sweep]) {
        const run = await simulate(workload, () => contender.client(workload));
        rows.push({ contender, metrics: measureServer(workload, run) });
      }
      const result = { workload, rows, sweep: rows.filter((r) => sweep.includes(r.contender)) };
      servers.push(result);
      console.log(`${serverTable(result)}\n`);
      continue;
    }
    const best = oracle(workload);
    const rows = [];
    for (const contender of running) {
      const run = await simulate(workload, () => contender.client(workload));
      rows.push({ contender, metrics: measure(workload, run, best) });
    }
    const result = { workload, rows, oracle: best };
    rates.push(result);
    console.log(`${workloadTable(result)}\n`);
  }
  const targets = [...rateTargets(rates), ...serverTargets(servers)];
  console.log(`Targets\n\n${targetList(targets)}`);
  if (chosen.length === headerlessWorkloads.length) {
    const file = new URL("../results/headerless.md", import.meta.url);
    const records = existsSync(file) ? keptRecords(readFileSync(file, "utf8")) : "";
    const all = [...contenders, ...swept.values()];
    const wallMs = performance.now() - started;
    writeFileSync(file, headerlessFile(rates, servers, targets, all, wallMs, records, RECORDS_MARKER));
    console.log(`\nwrote ${file.pathname}`);
  }
}
