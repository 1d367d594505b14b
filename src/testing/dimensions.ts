import { ContinuousBucket } from "./buckets.js";
import type { Meter } from "./meter.js";
import { FixedWindowCounter } from "./windows.js";

/**
 * The metered dimensions a simulated provider can enforce (concurrency is counted apart).
 * @inline
 */
export type DimensionName = "rpm" | "rpd" | "tpm" | "tpd" | "itpm" | "otpm";

/**
 * Every reason a call can be rejected: a metered dimension or the concurrency cap.
 * @inline
 */
export type RejectionDimension = DimensionName | "concurrency";

/**
 * How the server keeps count:
 * - `"bucket"`: continuously refilled token buckets (OpenAI, Anthropic, Groq).
 * - `"fixed"`: counters reset at minute/day boundaries aligned to the clock.
 * - `"azure"`: per-minute dimensions enforced over fixed 10 s sub-windows, each
 *   allowing floor(limit / 6) (at least 1); per-day dimensions as in `"fixed"`.
 * @inline
 */
export type WindowMode = "bucket" | "fixed" | "azure";

/**
 * When output tokens are charged to OTPM:
 * - `"estimate"`: `max_tokens` at admission, reconciled to the actual output at completion.
 * - `"actual"`: nothing at admission (the bucket must only be out of debt), the
 *   actual output at completion.
 * @inline
 */
export type OutputCharge = "estimate" | "actual";

/** Whether a dimension counts requests or tokens (OpenAI's 429 `error.type`). */
export type DimensionUnit = "requests" | "tokens";

/** What the meters need to know about one admitted call. */
export interface CallSize {
  /** Prompt (input) tokens. */
  readonly prompt: number;
  /** The requested output cap, `max_tokens`. */
  readonly maxTokens: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const AZURE_SUB_WINDOW_MS = 10_000;

interface DimensionSpec {
  readonly periodMs: number;
  readonly unit: DimensionUnit;
}

const SPECS: Readonly<Record<DimensionName, DimensionSpec>> = {
  rpm: { periodMs: MINUTE_MS, unit: "requests" },
  rpd: { periodMs: DAY_MS, unit: "requests" },
  tpm: { periodMs: MINUTE_MS, unit: "tokens" },
  tpd: { periodMs: DAY_MS, unit: "tokens" },
  itpm: { periodMs: MINUTE_MS, unit: "tokens" },
  otpm: { periodMs: MINUTE_MS, unit: "tokens" },
};

/** Order in which dimensions are checked and reported; also breaks ties between binding dimensions. */
export const DIMENSION_NAMES: readonly DimensionName[] = ["rpm", "rpd", "tpm", "tpd", "itpm", "otpm"];

/** One enforced dimension: its meter and how a call is charged to it. */
export interface Dimension {
  readonly name: DimensionName;
  readonly unit: DimensionUnit;
  readonly meter: Meter;
  /** Units charged at admission. */
  admissionCost(call: CallSize): number;
  /**
   * Units to give back (positive) or charge extra (negative) at completion,
   * once the actual output length is known.
   */
  completionRefund(call: CallSize, actual: number): number;
}

/** Builds the enforced dimension for a configured limit. */
export function createDimension(
  name: DimensionName,
  limit: number,
  window: WindowMode,
  outputCharge: OutputCharge,
  now: number,
): Dimension {
  const spec = SPECS[name];
  return {
    name,
    unit: spec.unit,
    meter: createMeter(limit, spec.periodMs, window, now),
    admissionCost: (call) => admissionCost(name, call, outputCharge),
    completionRefund: (call, actual) => completionRefund(name, call, actual, outputCharge),
  };
}

function createMeter(limit: number, periodMs: number, window: WindowMode, now: number): Meter {
  if (window === "bucket") return new ContinuousBucket(limit, periodMs, now);
  if (window === "azure" && periodMs === MINUTE_MS) {
    const perSubWindow = Math.max(1, Math.floor((limit * AZURE_SUB_WINDOW_MS) / MINUTE_MS));
    return new FixedWindowCounter(perSubWindow, AZURE_SUB_WINDOW_MS, now);
  }
  return new FixedWindowCounter(limit, periodMs, now);
}

function admissionCost(name: DimensionName, call: CallSize, outputCharge: OutputCharge): number {
  switch (name) {
    case "rpm":
    case "rpd":
      return 1;
    case "tpm":
    case "tpd":
      return call.prompt + call.maxTokens;
    case "itpm":
      return call.prompt;
    case "otpm":
      return outputCharge === "estimate" ? call.maxTokens : 0;
  }
}

function completionRefund(name: DimensionName, call: CallSize, actual: number, outputCharge: OutputCharge): number {
  switch (name) {
    case "rpm":
    case "rpd":
    case "itpm":
      return 0;
    case "tpm":
    case "tpd":
      return call.maxTokens - actual;
    case "otpm":
      return outputCharge === "estimate" ? call.maxTokens - actual : -actual;
  }
}
