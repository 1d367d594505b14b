import { BUDGET_FLAGS, UsageError, durationFlag, numberFlag, parseFlags } from "../plan/args.js";
import type { SimulateOptions } from "./options.js";

/** The help text of `llm-limiter simulate`. */
export const SIMULATE_USAGE = `Usage: llm-limiter simulate <workload.jsonl> [budgets] [options]

Runs a workload through llm-limiter against the built-in provider simulator on virtual time,
and again from a client with no limiter, then reports both: 429s, makespan, latency, and (with
--out) an HTML page with charts over time of the key's levels beside the limiter's view, the
queue, attempts and 429s, the limiter's stalls marked.

Workload: one JSON object a line, {"at": ms, "prompt": n, "maxTokens": n, "completion": n}
(optional "model" and "priority"); see docs/simulate.md.

Budgets (at least one; the simulated key enforces them and the limiter is configured with them):
  --rpm N, --tpm N, --itpm N, --otpm N, --rpd N, --tpd N
  --concurrency N     calls in flight at once
Options:
  --latency D         admission to answer, fixed: 2s, 500ms or 2000 (ms);
                      default 300 ms + 15 ms per completion token
  --dialect NAME      the headers the key sends: openai or anthropic;
                      default anthropic with --itpm or --otpm, else openai
  --retries N         retries of a call after a 429, both clients alike; default 10
  --priorities A,B    the limiter's priority classes, the most urgent first; default the
                      workload's "priority" values in the order they first arrive
  --sample D          simulated time between two samples of the charts; default about 1/300 of the run
  --out FILE          write the HTML report there
  --json              print the whole result (samples included) as JSON instead of the summary
  -h, --help          print this help`;

/** What `llm-limiter simulate` is asked to do. */
export type SimulateCommand =
  | { help: true }
  | {
      help: false;
      /** The workload file. */
      workload: string;
      options: Omit<SimulateOptions, "onProgress">;
      out: string | undefined;
      json: boolean;
    };

/** Reads `simulate ...` arguments (without the node and script paths). Throws {@link UsageError}. */
export function parseSimulateArgs(args: readonly string[]): SimulateCommand {
  const { values, positionals } = parseFlags(args, {
    strings: [...BUDGET_FLAGS, "latency", "dialect", "retries", "sample", "priorities", "out"],
  });
  if (values.help === true) return { help: true };
  if (positionals[0] !== "simulate") throw new UsageError('the command must be "simulate"');
  if (positionals.length !== 2) {
    throw new UsageError(
      positionals.length < 2
        ? "missing the workload file: llm-limiter simulate <workload.jsonl> ..."
        : `one workload file is expected, got ${positionals.slice(1).join(" ")}`,
    );
  }
  const options: Record<string, unknown> = {};
  for (const flag of BUDGET_FLAGS) {
    const text = values[flag];
    if (typeof text === "string") options[flag] = numberFlag(flag, text);
  }
  if (!BUDGET_FLAGS.some((flag) => options[flag] !== undefined)) {
    throw new UsageError(`at least one budget is required: ${BUDGET_FLAGS.map((f) => `--${f}`).join(", ")}`);
  }
  const { latency, dialect, retries, sample, priorities, out } = values;
  if (typeof latency === "string") options.latencyMs = durationFlag("latency", latency);
  if (typeof dialect === "string") {
    if (dialect !== "openai" && dialect !== "anthropic") {
      throw new UsageError(`--dialect must be openai or anthropic, got "${dialect}"`);
    }
    options.dialect = dialect;
  }
  if (typeof retries === "string") options.retries = numberFlag("retries", retries);
  if (typeof sample === "string") options.sampleMs = Math.round(durationFlag("sample", sample));
  if (typeof priorities === "string") options.priorities = priorities.split(",").map((name) => name.trim());
  return {
    help: false,
    workload: positionals[1]!,
    options: options as SimulateOptions,
    out: typeof out === "string" ? out : undefined,
    json: values.json === true,
  };
}
