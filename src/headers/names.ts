import { DAY, HOUR, MINUTE, SECOND } from "./bounds.js";
import type { ReportedUnit } from "./types.js";

/** The limiter's shorthand budget names (src/dimensions.ts), by unit and window. */
const SHORTHANDS: ReadonlyMap<string, string> = new Map([
  [`requests/${MINUTE}`, "rpm"],
  [`tokens/${MINUTE}`, "tpm"],
  [`requests/${DAY}`, "rpd"],
  [`tokens/${DAY}`, "tpd"],
  [`input/${MINUTE}`, "itpm"],
  [`output/${MINUTE}`, "otpm"],
]);

const SPELLINGS: readonly (readonly [number, string])[] = [
  [DAY, "d"],
  [HOUR, "h"],
  [MINUTE, "min"],
  [SECOND, "s"],
];

/** `10s`, `30d`, `5min`, `1500ms`: the largest unit that divides the window exactly. */
function formatWindow(windowMs: number): string {
  const ms = Math.round(windowMs);
  for (const [unit, suffix] of SPELLINGS) {
    if (ms % unit === 0) return `${ms / unit}${suffix}`;
  }
  return `${ms}ms`;
}

/**
 * A dimension's name: the limiter's shorthand when its unit and window have one (`rpm`,
 * `tpd`, `itpm`, ...), `concurrency` for concurrency, else `unit/window` (`requests/10s`).
 */
export function dimensionName(unit: ReportedUnit, windowMs: number): string {
  if (unit === "concurrency") return "concurrency";
  return SHORTHANDS.get(`${unit}/${windowMs}`) ?? `${unit}/${formatWindow(windowMs)}`;
}
