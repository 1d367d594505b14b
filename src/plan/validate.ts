import { notANumber, positive, shown, unknownOption } from "../core/values.js";
import type { PlanInput } from "./types.js";

/** The budget options of {@link PlanInput}, in the order a plan lists them. */
export const PLAN_LIMITS = ["rpm", "tpm", "rpd", "tpd", "itpm", "otpm", "concurrency"] as const;
const OTHER_KEYS = ["prompt", "completion", "maxTokens", "latencyMs", "burst"] as const;
const KEYS: readonly string[] = [...PLAN_LIMITS, ...OTHER_KEYS];

function atLeastZero(what: string, value: unknown): number {
  if (typeof value !== "number") throw notANumber(what, value);
  if (!(value >= 0 && value < Infinity)) throw new RangeError(`${what} must be a finite number >= 0, got ${value}`);
  return value;
}

function wholeNumber(what: string, value: unknown): number {
  positive(what, value);
  if (!Number.isInteger(value)) throw new RangeError(`${what} must be a whole number, got ${String(value)}`);
  return value as number;
}

/**
 * Throws TypeError for a wrong type, an unknown key or no budget, RangeError for a value out
 * of range or a call that can never be admitted, so a bad plan fails before any arithmetic.
 */
export function validatePlanInput(input: PlanInput): Required<Pick<PlanInput, "latencyMs">> & PlanInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new TypeError(`plan() takes an object, got ${shown(input)}`);
  }
  for (const key of Object.keys(input)) if (!KEYS.includes(key)) throw unknownOption("plan()", key, KEYS);
  const given = PLAN_LIMITS.filter((name) => input[name] !== undefined);
  if (given.length === 0) throw new TypeError(`plan() needs at least one budget: ${PLAN_LIMITS.join(", ")}`);
  for (const name of given) (name === "concurrency" ? wholeNumber : positive)(name, input[name]);
  atLeastZero("prompt", input.prompt);
  positive("completion", input.completion);
  positive("maxTokens", input.maxTokens);
  if (input.maxTokens < input.completion) {
    throw new RangeError(
      `maxTokens (${input.maxTokens}) must be >= completion (${input.completion}): a provider stops the answer at maxTokens`,
    );
  }
  const latencyMs = input.latencyMs === undefined ? 0 : atLeastZero("latencyMs", input.latencyMs);
  if (input.burst !== undefined) wholeNumber("burst", input.burst);
  if (input.concurrency !== undefined && latencyMs === 0) {
    throw new RangeError("concurrency needs latencyMs > 0: calls that take no time never fill the slots");
  }
  return { ...input, latencyMs };
}
