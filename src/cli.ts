#!/usr/bin/env node
import { readFile, writeFile } from "node:fs/promises";
import { plan } from "./plan/index.js";
import { parsePlanArgs, UsageError, USAGE } from "./plan/args.js";
import { renderPlan } from "./plan/render.js";
import { parseSimulateArgs, SIMULATE_USAGE, type SimulateCommand } from "./simulate/args.js";
import { progressLine } from "./simulate/progress.js";
import { renderReport } from "./simulate/report/html.js";
import { renderSummary } from "./simulate/render-text.js";
import { simulate } from "./simulate/run.js";
import { parseWorkload } from "./simulate/workload.js";

/** Exit code for a command line that cannot be run (bad flags, values or workload), as most CLIs use. */
const USAGE_EXIT = 2;

async function runSimulate(command: Exclude<SimulateCommand, { help: true }>): Promise<void> {
  let source: string;
  try {
    source = await readFile(command.workload, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${command.workload}: ${(error as Error).message}`, { cause: error });
  }
  let workload;
  try {
    workload = parseWorkload(source);
  } catch (error) {
    throw new UsageError(`${command.workload}: ${(error as Error).message}`, { cause: error });
  }
  const progress = progressLine(process.stderr);
  let result;
  try {
    result = await simulate(workload, { ...command.options, onProgress: progress.onProgress });
  } finally {
    progress.end();
  }
  if (command.out !== undefined) {
    await writeFile(command.out, renderReport(result, { subtitle: `Workload: ${command.workload}` }));
  }
  console.log(command.json ? JSON.stringify(result, null, 2) : renderSummary(result));
  if (command.out !== undefined) console.error(`Report written to ${command.out}`);
}

const args = process.argv.slice(2);
const simulating = args[0] === "simulate";
try {
  if (simulating) {
    const command = parseSimulateArgs(args);
    if (command.help) console.log(SIMULATE_USAGE);
    else await runSimulate(command);
  } else {
    const command = parsePlanArgs(args);
    if (command.help) {
      console.log(args[0] === "plan" ? USAGE : `${USAGE}\n\n${SIMULATE_USAGE}`);
    } else {
      const result = plan(command.input);
      console.log(command.json ? JSON.stringify(result, null, 2) : renderPlan(result));
    }
  }
} catch (error) {
  // plan() and simulate() reject values the flags parse but the model cannot take, with these types.
  if (!(error instanceof UsageError || error instanceof TypeError || error instanceof RangeError)) throw error;
  console.error(
    `llm-limiter: ${error.message}\nRun llm-limiter ${simulating ? "simulate " : ""}--help for the options.`,
  );
  process.exitCode = USAGE_EXIT;
}
