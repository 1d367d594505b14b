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

/** The budget flags, each named as its option: `plan` and `simulate` take them all. */
export const BUDGET_FLAGS = ["rpm", "tpm", "itpm", "otpm", "rpd", "tpd", "concurrency"] as const;

/** Flag name -> the {@link PlanInput} field it sets. */
const NUMBERS = {
  ...(Object.fromEntries(BUDGET_FLAGS.map((flag) => [flag, flag])) as { [F in (typeof BUDGET_FLAGS)[number]]: F }),
  prompt: "prompt",
  completion: "completion",
  "max-tokens": "maxTokens",
  burst: "burst",
} as const satisfies Record<string, keyof PlanInput>;
const REQUIRED = ["prompt", "completion", "max-tokens"] as const;

/** A flag's value as a plain decimal number. Throws {@link UsageError}. */
export function numberFlag(flag: string, text: string): number {
  // Number("") and Number(" ") are 0, and "0x10" is 16: only plain decimals (1_000_000 too) pass.
  const value = /^\d[\d_]*(\.\d+)?$/.test(text) ? Number(text.replaceAll("_", "")) : NaN;
  if (Number.isNaN(value)) throw new UsageError(`--${flag} must be a number, got "${text}"`);
  return value;
}

/** A flag's value as a duration in ms: `2s`, `500ms`, `1m30s` (Go durations) or a bare number of ms. */
export function durationFlag(flag: string, text: string): number {
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) : parseGoDuration(text)?.ms;
  if (ms === undefined)
    throw new UsageError(`--${flag} must be a duration such as 2s, 500ms or 2000 (ms), got "${text}"`);
  return ms;
}

/** Flags read as text and checked by the caller, and the boolean ones; `--help` and `--json` are always there. */
export interface FlagSpec {
  readonly strings: readonly string[];
  readonly booleans?: readonly string[];
}

/** A command line's flags by name (the flags are data, so TypeScript cannot name them) and its positionals. */
export interface ParsedFlags {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** Reads flags strictly: an unknown flag or a missing value is a {@link UsageError}. */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const options = {
    ...Object.fromEntries(spec.strings.map((flag) => [flag, { type: "string" as const }])),
    ...Object.fromEntries((spec.booleans ?? []).map((flag) => [flag, { type: "boolean" as const }])),
    json: { type: "boolean" as const },
    help: { type: "boolean" as const, short: "h" },
  };
  try {
    const { values, positionals } = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** What a command line asks for: the help, or a plan and how to print it. */
export type PlanCommand = { help: true } | { help: false; input: PlanInput; json: boolean };

/** Reads `plan ...` arguments (without the node and script paths). Throws {@link UsageError}. */
export function parsePlanArgs(args: readonly string[]): PlanCommand {
  const { values, positionals } = parseFlags(args, { strings: [...Object.keys(NUMBERS), "latency"] });
  if (values.help === true) return { help: true };
  if (positionals[0] !== "plan" || positionals.length > 1) {
    throw new UsageError(
      positionals.length === 0
        ? "missing command: plan or simulate"
        : `unknown command "${positionals.join(" ")}"; the commands are plan and simulate`,
    );
  }
  for (const flag of REQUIRED) if (values[flag] === undefined) throw new UsageError(`--${flag} is required`);
  const input: Record<string, number> = {};
  for (const [flag, field] of Object.entries(NUMBERS)) {
    const text = values[flag];
    if (typeof text === "string") input[field] = numberFlag(flag, text);
  }
  if (typeof values.latency === "string") input.latencyMs = durationFlag("latency", values.latency);
  return { help: false, input: input as unknown as PlanInput, json: values.json === true };
}
