import { resolvePriorities } from "../core/priorities.js";
import { notANumber, plainObject, positive, shown, unknownOption } from "../core/values.js";
import { SIMULATE_BUDGETS, type LatencyCall, type SimulateBudget, type SimulateOptions } from "./options.js";
import type { WorkloadCall } from "./workload.js";
import { workloadCall } from "./workload.js";

/** {@link SimulateOptions} checked, with the defaults that do not depend on the workload applied. */
export interface CheckedOptions {
  readonly budgets: Readonly<Partial<Record<SimulateBudget, number>>>;
  readonly dialect: "openai" | "anthropic";
  readonly latencyMs: (call: LatencyCall) => number;
  readonly retries: number;
  readonly sampleMs: number | undefined;
  readonly limitMs: number | undefined;
  /** The limiter's priority classes; `undefined` when the workload names none. */
  readonly priorities: readonly string[] | undefined;
  readonly onProgress: SimulateOptions["onProgress"];
}

const KEYS: readonly string[] = [
  ...SIMULATE_BUDGETS,
  "dialect",
  "latencyMs",
  "retries",
  "sampleMs",
  "limitMs",
  "priorities",
  "onProgress",
];

/** The default latency: a first token after 300 ms, then 15 ms a token. */
const defaultLatency = (call: LatencyCall): number => 300 + 15 * call.completion;

function wholeAtLeast(what: string, value: unknown, min: number): number {
  if (typeof value !== "number") throw notANumber(what, value);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${what} must be a whole number >= ${min}, got ${value}`);
  }
  return value;
}

function latencyOf(value: SimulateOptions["latencyMs"]): (call: LatencyCall) => number {
  if (value === undefined) return defaultLatency;
  if (typeof value === "function") return value;
  if (typeof value !== "number") throw notANumber("simulate(): latencyMs", value);
  if (!(value >= 0 && value < Infinity)) {
    throw new RangeError(`simulate(): latencyMs must be a finite number >= 0, got ${value}`);
  }
  return () => value;
}

/** The `priorities` option checked against the workload, or the workload's in the order they first arrive. */
function prioritiesOf(workload: readonly WorkloadCall[], option: unknown): readonly string[] | undefined {
  const named = new Set<string>();
  for (const { priority } of workload) if (priority !== undefined) named.add(priority);
  if (option === undefined) return named.size === 0 ? undefined : [...named];
  let classes: readonly string[];
  try {
    classes = resolvePriorities(option, undefined, undefined).names;
  } catch (error) {
    if (error instanceof Error) error.message = `simulate(): ${error.message}`;
    throw error;
  }
  for (const [i, { priority }] of workload.entries()) {
    if (priority !== undefined && !classes.includes(priority)) {
      throw new TypeError(
        `simulate(): call ${i + 1}'s priority ${JSON.stringify(priority)} is not one of the priorities`,
      );
    }
  }
  return classes;
}

/** Throws TypeError or RangeError for a bad workload or option, before anything runs. */
export function checkSimulation(workload: readonly WorkloadCall[], options: SimulateOptions): CheckedOptions {
  if (!Array.isArray(workload))
    throw new TypeError(`simulate(): the workload must be an array, got ${shown(workload)}`);
  if (workload.length === 0) throw new RangeError("simulate(): the workload has no call");
  // The same checks as a workload file's lines.
  workload.forEach((call, i) => workloadCall(`simulate(): call ${i + 1}`, call));
  for (const [i, call] of workload.entries()) {
    if (i > 0 && call.at < workload[i - 1]!.at) {
      throw new RangeError(`simulate(): the calls must be sorted by "at" (call ${i + 1} arrives before call ${i})`);
    }
  }
  plainObject("simulate(): options", options);
  for (const key of Object.keys(options)) if (!KEYS.includes(key)) throw unknownOption("simulate()", key, KEYS);
  const budgets: Partial<Record<SimulateBudget, number>> = {};
  for (const name of SIMULATE_BUDGETS) {
    const value = options[name];
    if (value === undefined) continue;
    budgets[name] = name === "concurrency" ? wholeAtLeast(name, value, 1) : positive(name, value);
  }
  if (Object.keys(budgets).length === 0) {
    throw new TypeError(`simulate() needs at least one budget: ${SIMULATE_BUDGETS.join(", ")}`);
  }
  const split = budgets.itpm !== undefined || budgets.otpm !== undefined;
  const dialect = options.dialect ?? (split ? "anthropic" : "openai");
  if (dialect !== "openai" && dialect !== "anthropic") {
    throw new TypeError(`simulate(): dialect must be "openai" or "anthropic", got ${shown(dialect)}`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new TypeError(`simulate(): onProgress must be a function, got ${shown(options.onProgress)}`);
  }
  return {
    budgets,
    dialect,
    latencyMs: latencyOf(options.latencyMs),
    retries: options.retries === undefined ? 10 : wholeAtLeast("retries", options.retries, 0),
    sampleMs: options.sampleMs === undefined ? undefined : wholeAtLeast("sampleMs", options.sampleMs, 1),
    limitMs: options.limitMs === undefined ? undefined : positive("limitMs", options.limitMs),
    priorities: prioritiesOf(workload, options.priorities),
    onProgress: options.onProgress,
  };
}
