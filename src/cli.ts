#!/usr/bin/env node
import { plan } from "./plan/index.js";
import { parsePlanArgs, UsageError, USAGE } from "./plan/args.js";
import { renderPlan } from "./plan/render.js";

/** Exit code for a command line that cannot be run (bad flags or values), as most CLIs use. */
const USAGE_EXIT = 2;

try {
  const command = parsePlanArgs(process.argv.slice(2));
  if (command.help) {
    console.log(USAGE);
  } else {
    const result = plan(command.input);
    console.log(command.json ? JSON.stringify(result, null, 2) : renderPlan(result));
  }
} catch (error) {
  // plan() rejects values the flags parse but the model cannot take, with these types.
  if (!(error instanceof UsageError || error instanceof TypeError || error instanceof RangeError)) throw error;
  console.error(`llm-limiter: ${error.message}\nRun llm-limiter --help for the options.`);
  process.exitCode = USAGE_EXIT;
}
