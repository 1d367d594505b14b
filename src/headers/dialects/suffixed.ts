import { DAY, MINUTE, MONTH } from "../bounds.js";
import { fixedWindow, readTriple, toDimension, tripleNames } from "../dimension.js";
import type { HeaderMap } from "../normalize.js";
import type { TimeContext } from "../reset.js";
import type { ReportedDimension, ReportedUnit } from "../types.js";
import { collect, type Dialect } from "./dialect.js";

/** Unit spellings in header names: Cerebras writes `requests`, Mistral `req`. */
const UNITS: readonly (readonly [string, ReportedUnit])[] = [
  ["requests", "requests"],
  ["req", "requests"],
  ["tokens", "tokens"],
];

/** Window suffixes; a month is taken as 30 days. */
const WINDOWS: readonly (readonly [string, number])[] = [
  ["minute", MINUTE],
  ["day", DAY],
  ["month", MONTH],
];

/**
 * Headers that spell their window: `x-ratelimit-{limit,remaining,reset}-<unit>-<window>`
 * (Cerebras's `-requests-day`, `-tokens-minute`; Mistral's `-req-minute`, `-tokens-month`).
 * The name fixes the window whoever sends it.
 */
export function readSuffixedNames(
  headers: HeaderMap,
  ctx: TimeContext,
): Iterable<[string, ReportedDimension] | undefined> {
  const entries: ([string, ReportedDimension] | undefined)[] = [];
  for (const [unitName, unit] of UNITS) {
    for (const [windowName, windowMs] of WINDOWS) {
      const names = tripleNames("x-ratelimit", `-${unitName}-${windowName}`);
      entries.push(toDimension(readTriple(headers, unit, names, ctx), fixedWindow(windowMs)));
    }
  }
  return entries;
}

/** Cerebras and Mistral: every header names its window (docs/providers.md#cerebras-and-mistral). */
export const readSuffixed: Dialect = (headers, ctx) => ({ dimensions: collect(readSuffixedNames(headers, ctx)) });
