import { parseArgs } from "node:util";
import { parseGoDuration } from "../headers/durations.js";
import type { PlanInput } from "./types.js";

/** A command line that cannot be run: the CLI prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** The help text of `llm-limiter plan`. */
export const USAGE = `Usage: llm-limiter plan [budgets] --prompt N --completion N --max-tokens N [options]

How a key's budgets hold up under a workload: which budget binds, the TPM/RPM crossover,
sustainable calls per minute, what max_tokens over-reserves, how long a burst drains.

Budgets (at least one):
  --rpm N, --tpm N, --itpm N, --otpm N, --rpd N, --tpd N
  --concurrency N     calls in flight at once (needs --latency)
Calls:
  --prompt N          prompt tokens of a typical call
  --completion N      output tokens a typical answer uses
  --max-tokens N      the max_tokens each call sends
Options:
  --latency D         admission to settle: 2s, 500ms, 1m30s or 2000 (ms); default 0
  --burst N           calls arriving at once, to time their drain
  --json              print the plan as JSON
  -h, --help          print this help`;

/** Flag name -> the {@link PlanInput} field it sets. */
const NUMBERS = {
  rpm: "rpm",
  tpm: "tpm",
  itpm: "itpm",
  otpm: "otpm",
  rpd: "rpd",
  tpd: "tpd",
  concurrency: "concurrency",
  prompt: "prompt",
  completion: "completion",
  "max-tokens": "maxTokens",
  burst: "burst",
} as const satisfies Record<string, keyof PlanInput>;
const REQUIRED = ["prompt", "completion", "max-tokens"] as const;

function number(flag: string, text: string): number {
  // Number("") and Number(" ") are 0, and "0x10" is 16: only plain decimals (1_000_000 too) pass.
  const value = /^\d[\d_]*(\.\d+)?$/.test(text) ? Number(text.replaceAll("_", "")) : NaN;
  if (Number.isNaN(value)) throw new UsageError(`--${flag} must be a number, got "${text}"`);
  return value;
}

/** `2s`, `500ms`, `1m30s` (Go durations) or a bare number of ms. */
function durationMs(flag: string, text: string): number {
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) : parseGoDuration(text)?.ms;
  if (ms === undefined)
    throw new UsageError(`--${flag} must be a duration such as 2s, 500ms or 2000 (ms), got "${text}"`);
  return ms;
}

/** What a command line asks for: the help, or a plan and how to print it. */
export type PlanCommand = { help: true } | { help: false; input: PlanInput; json: boolean };

/** Reads `plan ...` arguments (without the node and script paths). Throws {@link UsageError}. */
export function parsePlanArgs(args: readonly string[]): PlanCommand {
  const options = {
    ...Object.fromEntries(Object.keys(NUMBERS).map((flag) => [flag, { type: "string" as const }])),
    latency: { type: "string" as const },
    json: { type: "boolean" as const },
    help: { type: "boolean" as const, short: "h" },
  };
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { positionals } = parsed;
  // The flags are built from NUMBERS, so TypeScript cannot name them: read them by key.
  const values: Record<string, string | boolean | undefined> = parsed.values;
  if (values.help === true) return { help: true };
  if (positionals[0] !== "plan" || positionals.length > 1) {
    throw new UsageError(
      positionals.length === 0
        ? "missing command: plan"
        : `unknown command "${positionals.join(" ")}"; the command is plan`,
    );
  }
  for (const flag of REQUIRED) if (values[flag] === undefined) throw new UsageError(`--${flag} is required`);
  const input: Record<string, number> = {};
  for (const [flag, field] of Object.entries(NUMBERS)) {
    const text = values[flag];
    if (typeof text === "string") input[field] = number(flag, text);
  }
  if (typeof values.latency === "string") input.latencyMs = durationMs("latency", values.latency);
  return { help: false, input: input as unknown as PlanInput, json: values.json === true };
}
