import { shown } from "../core/values.js";

/**
 * One call of a workload, as a line of a workload file holds it:
 * `{"at": 1500, "prompt": 800, "maxTokens": 1024, "completion": 240}`.
 */
export interface WorkloadCall {
  /** When the call arrives, in ms from the start of the run (an integer >= 0). */
  readonly at: number;
  /** Prompt (input) tokens (an integer >= 0). */
  readonly prompt: number;
  /** The `max_tokens` the call sends (an integer >= 1): what is reserved for the answer at admission. */
  readonly maxTokens: number;
  /** Output tokens the answer turns out to use (an integer, 0..`maxTokens`): what the call settles on. */
  readonly completion: number;
  /** The model asked for; the simulator echoes it and meters every model alike. */
  readonly model?: string;
  /** The call's priority class: the limiter serves it in that class (see `SimulateOptions.priorities`). */
  readonly priority?: string;
}

const FIELDS = ["at", "prompt", "maxTokens", "completion", "model", "priority"] as const;

/** A field of `line` that must be a whole number >= `min`. */
function whole(line: string, record: Record<string, unknown>, field: string, min: number): number {
  const value = record[field];
  if (value === undefined) throw new TypeError(`${line}: "${field}" is required`);
  if (typeof value !== "number") throw new TypeError(`${line}: "${field}" must be a number, got ${shown(value)}`);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${line}: "${field}" must be a whole number >= ${min}, got ${value}`);
  }
  return value;
}

function text(line: string, record: Record<string, unknown>, field: "model" | "priority"): string | undefined {
  const value = record[field];
  if (value === undefined || typeof value === "string") return value;
  throw new TypeError(`${line}: "${field}" must be a string, got ${shown(value)}`);
}

/** Checks one parsed call and returns it; `line` names it in the messages (`line 3`). */
export function workloadCall(line: string, value: unknown): WorkloadCall {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${line}: a call must be a JSON object, got ${shown(value)}`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new TypeError(`${line}: unknown field "${key}"; the fields are ${FIELDS.join(", ")}`);
    }
  }
  const call = {
    at: whole(line, record, "at", 0),
    prompt: whole(line, record, "prompt", 0),
    maxTokens: whole(line, record, "maxTokens", 1),
    completion: whole(line, record, "completion", 0),
  };
  if (call.completion > call.maxTokens) {
    throw new RangeError(
      `${line}: "completion" (${call.completion}) must not exceed "maxTokens" (${call.maxTokens}): the provider stops the answer there`,
    );
  }
  const model = text(line, record, "model");
  const priority = text(line, record, "priority");
  return { ...call, ...(model === undefined ? {} : { model }), ...(priority === undefined ? {} : { priority }) };
}

/**
 * Reads a workload file: one JSON object per line (see {@link WorkloadCall}); blank lines are
 * skipped. The calls come back sorted by `at`, calls at the same instant in file order.
 *
 * @throws TypeError or RangeError naming the line (1-based) of the first bad call, or for a file with no call.
 */
export function parseWorkload(source: string): WorkloadCall[] {
  const calls: WorkloadCall[] = [];
  const lines = source.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new TypeError(`line ${i + 1}: not JSON (${(error as Error).message})`, { cause: error });
    }
    calls.push(workloadCall(`line ${i + 1}`, value));
  }
  if (calls.length === 0) throw new TypeError("the workload has no call: one JSON object a line is expected");
  // Array.prototype.sort is stable: calls at one instant keep the file's order.
  return calls.sort((a, b) => a.at - b.at);
}
