import { MAX_COUNT } from "./bounds.js";

/** A non-negative decimal found in a string. */
export interface ScannedDecimal {
  /** The number read. */
  value: number;
  /** Index just past its last character. */
  end: number;
  /** The size of its last digit: 1 for `12`, 0.01 for `59.56`. The value's precision. */
  step: number;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Reads `digits [. digits]` (or `. digits`) at `start`: no sign, no exponent. One pass,
 * no backtracking; `undefined` when no digit is there.
 */
export function scanDecimal(s: string, start: number): ScannedDecimal | undefined {
  let i = start;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  let digits = i - start;
  let fraction = 0;
  if (i < s.length && s.charCodeAt(i) === 46 /* . */) {
    const from = ++i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    fraction = i - from;
    digits += fraction;
  }
  if (digits === 0) return undefined;
  const value = Number(s.slice(start, i));
  if (!Number.isFinite(value)) return undefined;
  return { value, end: i, step: 10 ** -fraction };
}

/** The whole string as a non-negative decimal, or `undefined`. */
export function parseDecimal(s: string): ScannedDecimal | undefined {
  const d = scanDecimal(s, 0);
  return d !== undefined && d.end === s.length ? d : undefined;
}

/** A limit or remaining count: a non-negative decimal no larger than {@link MAX_COUNT}. */
export function parseCount(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const d = parseDecimal(s);
  return d !== undefined && d.value <= MAX_COUNT ? d.value : undefined;
}
