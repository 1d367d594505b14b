import { notANumber, shown } from "./values.js";
import type { Dimension } from "./budget.js";
import type { Estimate, Unit } from "./limits.js";

/** Whether any dimension meters input or output tokens separately. */
export function needsSplitEstimate(dimensions: readonly Dimension[]): boolean {
  return dimensions.some((d) => d.unit === "input" || d.unit === "output");
}

/**
 * What is wrong with an estimate or usage (`what` names it in the message), or
 * `undefined` when it is well-formed: a finite number >= 0, or `{ input, output }`
 * of such numbers; only the latter when input/output tokens are metered (`split`).
 */
export function amountProblem(what: string, value: unknown, split: boolean): TypeError | RangeError | undefined {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0)
      return new RangeError(`${what} must be a finite number >= 0, got ${value}`);
    return split
      ? new TypeError(`${what} must be { input, output } when input or output tokens are limited`)
      : undefined;
  }
  if (typeof value !== "object" || value === null) {
    return new TypeError(`${what} must be a number or { input, output }, got ${shown(value)}`);
  }
  const { input, output } = value as { input?: unknown; output?: unknown };
  for (const [part, n] of [
    ["input", input],
    ["output", output],
  ] as const) {
    if (typeof n !== "number") return notANumber(`${what}.${part}`, n);
    if (!Number.isFinite(n) || n < 0) return new RangeError(`${what}.${part} must be a finite number >= 0, got ${n}`);
  }
  const { cachedInput, cacheWrite } = value as { cachedInput?: unknown; cacheWrite?: unknown };
  if (cachedInput === undefined && cacheWrite === undefined) return undefined;
  return cacheProblem(what, input as number, cachedInput, cacheWrite);
}

/** What is wrong with the cache counts of an estimate or usage: each a count >= 0, together at most `input`. */
function cacheProblem(what: string, input: number, cachedInput: unknown, cacheWrite: unknown): Error | undefined {
  let cached = 0;
  for (const [part, n] of [
    ["cachedInput", cachedInput],
    ["cacheWrite", cacheWrite],
  ] as const) {
    if (n === undefined) continue;
    if (typeof n !== "number") return notANumber(`${what}.${part}`, n);
    if (!Number.isFinite(n) || n < 0) return new RangeError(`${what}.${part} must be a finite number >= 0, got ${n}`);
    cached += n;
  }
  return cached > input
    ? new RangeError(`${what}: cachedInput and cacheWrite are parts of input (${input}), together ${cached}`)
    : undefined;
}

/** What an (already validated) estimate or usage costs on a dimension of `unit`. */
export function costOf(unit: Unit, amount: Estimate): number {
  switch (unit) {
    case "requests":
      return 1;
    case "tokens":
      return typeof amount === "number" ? amount : amount.input + amount.output;
    case "input":
      return typeof amount === "number" ? amount : amount.input;
    case "output":
      return typeof amount === "number" ? amount : amount.output;
  }
}

/**
 * `estimate` as a value that later changes to the caller's object cannot alter: a number as it is, an
 * `{ input, output }` read once into an object of our own.
 */
export function copyEstimate(estimate: Estimate): Estimate {
  if (typeof estimate === "number") return estimate;
  const { input, output, cachedInput, cacheWrite } = estimate;
  if (cachedInput === undefined && cacheWrite === undefined) return { input, output };
  return { input, output, cachedInput, cacheWrite };
}
