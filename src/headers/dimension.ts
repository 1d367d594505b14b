import { MAX_COUNT, MAX_WINDOW_MS } from "./bounds.js";
import type { Span } from "./durations.js";
import { dimensionName } from "./names.js";
import type { HeaderMap } from "./normalize.js";
import { parseCount } from "./numbers.js";
import { parseReset, type TimeContext } from "./reset.js";
import type { ReportedDimension, ReportedUnit } from "./types.js";
import { inferWindow, type WindowDecision } from "./window.js";

/** One budget's values as read, before they are checked and named. */
export interface Reading {
  unit: ReportedUnit;
  limit?: number | undefined;
  remaining?: number | undefined;
  reset?: Span | undefined;
}

/** How a dialect decides a budget's window: it names it, or the triple is asked first. */
export type WindowRule =
  { readonly kind: "fixed"; readonly windowMs: number } | { readonly kind: "infer"; readonly fallback: WindowDecision };

/** The dialect fixes the window (OpenAI per minute, Groq requests per day, ...). */
export function fixedWindow(windowMs: number): WindowRule {
  return { kind: "fixed", windowMs };
}

/** Infer the window from the triple; `fallback` when it cannot tell. */
export function inferredWindow(fallback: WindowDecision): WindowRule {
  return { kind: "infer", fallback };
}

/** The header names of one limit / remaining / reset triple. */
export interface TripleNames {
  limit: string;
  remaining: string;
  reset: string;
}

/** `<prefix>-{limit,remaining,reset}<suffix>`, the spelling every dialect but IETF's current one uses. */
export function tripleNames(prefix: string, suffix = ""): TripleNames {
  return {
    limit: `${prefix}-limit${suffix}`,
    remaining: `${prefix}-remaining${suffix}`,
    reset: `${prefix}-reset${suffix}`,
  };
}

/** Reads a limit / remaining / reset triple of headers. */
export function readTriple(headers: HeaderMap, unit: ReportedUnit, names: TripleNames, ctx: TimeContext): Reading {
  return {
    unit,
    limit: parseCount(headers.get(names.limit)),
    remaining: parseCount(headers.get(names.remaining)),
    reset: parseReset(headers.get(names.reset), ctx),
  };
}

/** A count as sane: finite, in [0, {@link MAX_COUNT}], whole (rounded down: a provider counts whole units). */
function count(n: number | undefined): number | undefined {
  return n !== undefined && Number.isFinite(n) && n >= 0 && n <= MAX_COUNT ? Math.floor(n) : undefined;
}

/** A limit as sane: a count, at least 1 once positive (`0.5` or `0.000001` would make every call too large). */
function limitOf(n: number | undefined): number | undefined {
  const whole = count(n);
  return whole === undefined || n === 0 ? whole : Math.max(1, whole);
}

/**
 * A reading as a named {@link ReportedDimension}: absurd counts dropped, counts whole, a
 * positive limit at least 1, `remaining` clamped to `limit`, the window decided by `rule`
 * (concurrency has none) and at most {@link MAX_WINDOW_MS}. `undefined`
 * when neither a limit nor a remaining count survives: such a budget says nothing.
 */
export function toDimension(reading: Reading, rule: WindowRule): [string, ReportedDimension] | undefined {
  const limit = limitOf(reading.limit);
  const reported = count(reading.remaining);
  const remaining = limit !== undefined && reported !== undefined ? Math.min(reported, limit) : reported;
  if (limit === undefined && remaining === undefined) return undefined;
  const dimension: ReportedDimension = { unit: reading.unit };
  if (limit !== undefined) dimension.limit = limit;
  if (remaining !== undefined) dimension.remaining = remaining;
  if (reading.reset !== undefined) dimension.resetMs = reading.reset.ms;
  if (reading.unit === "concurrency") return ["concurrency", dimension];
  const window: WindowDecision =
    rule.kind === "fixed"
      ? { windowMs: rule.windowMs, windowSource: "dialect" }
      : inferWindow(limit, remaining, reading.reset, rule.fallback);
  dimension.windowMs = Math.min(window.windowMs, MAX_WINDOW_MS);
  dimension.windowSource = window.windowSource;
  return [dimensionName(reading.unit, dimension.windowMs), dimension];
}
