import { HOUR, MAX_DURATION_MS, MINUTE, SECOND } from "./bounds.js";
import { scanDecimal } from "./numbers.js";

/** A span of time read from text, with the precision the text gave it. */
export interface Span {
  /** Milliseconds, finite and non-negative. */
  ms: number;
  /** The size of the text's last digit in ms: the true value may be this far either way. */
  resolutionMs: number;
}

/** Go's duration units (`time.ParseDuration`), in ms. */
const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ["ns", 1e-6],
  ["us", 1e-3],
  ["\u00b5s", 1e-3], // µ MICRO SIGN, what Go prints
  ["\u03bcs", 1e-3], // μ GREEK SMALL LETTER MU, also accepted by Go
  ["ms", 1],
  ["s", SECOND],
  ["m", MINUTE],
  ["h", HOUR],
]);

function isUnitChar(code: number): boolean {
  // Letters and µ/μ: a unit runs until the next digit or dot.
  return (code >= 97 && code <= 122) || code === 0xb5 || code === 0x3bc;
}

/**
 * A Go duration as OpenAI and Groq send their resets (`6m0s`, `120ms`, `1h2m3.5s`,
 * `2m59.56s`, `16m17.764s`, `0`): one left-to-right pass over number-unit pairs. Signs are
 * rejected (a negative reset is meaningless), as is anything beyond {@link MAX_DURATION_MS}.
 */
export function parseGoDuration(s: string): Span | undefined {
  if (s === "0") return { ms: 0, resolutionMs: 0 };
  let ms = 0;
  let resolutionMs = 0;
  let i = 0;
  while (i < s.length) {
    const number = scanDecimal(s, i);
    if (number === undefined) return undefined;
    let end = number.end;
    while (end < s.length && isUnitChar(s.charCodeAt(end))) end++;
    const unit = UNIT_MS.get(s.slice(number.end, end));
    if (unit === undefined) return undefined;
    ms += number.value * unit;
    // Go prints every digit, but a server may round before formatting (Groq's `7.66s`),
    // so the precision is only what the text shows.
    resolutionMs = number.step * unit;
    i = end;
  }
  if (i === 0 || !Number.isFinite(ms) || ms > MAX_DURATION_MS) return undefined;
  return { ms, resolutionMs };
}
