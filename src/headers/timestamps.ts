import { SECOND } from "./bounds.js";

/** A moment read from text, with the precision the text gave it. */
export interface Instant {
  /** Epoch milliseconds. */
  epochMs: number;
  /** The size of the text's last digit in ms (1000 for whole seconds). */
  resolutionMs: number;
}

const MONTHS: ReadonlyMap<string, number> = new Map(
  ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map((m, i) => [m, i + 1]),
);

/** Exactly `count` ASCII digits at `start`, as a number. */
function fixedDigits(s: string, start: number, count: number): number | undefined {
  if (start + count > s.length) return undefined;
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return n;
}

/** Epoch ms of a calendar time in UTC, or `undefined` when a field is out of range. */
function utc(year: number, month: number, day: number, h: number, m: number, s: number): number | undefined {
  if (year < 1970 || month < 1 || month > 12 || day < 1 || h > 23 || m > 59 || s > 60) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return undefined;
  return Date.UTC(year, month - 1, day, h, m, s); // second 60 (a leap second) rolls over
}

/** `HH:MM:SS` at `start` as `[hours, minutes, seconds]`, or `undefined`. */
function clock(s: string, start: number): [number, number, number] | undefined {
  const h = fixedDigits(s, start, 2);
  const m = fixedDigits(s, start + 3, 2);
  const sec = fixedDigits(s, start + 6, 2);
  if (h === undefined || m === undefined || sec === undefined) return undefined;
  return s[start + 2] === ":" && s[start + 5] === ":" ? [h, m, sec] : undefined;
}

/**
 * An RFC 3339 timestamp, as Anthropic sends its resets (`2025-02-24T22:25:32Z`): date,
 * `T`, time, optional fraction, then `Z` or a `±HH:MM` offset. Fixed-position reads only.
 */
export function parseRfc3339(s: string): Instant | undefined {
  const year = fixedDigits(s, 0, 4);
  const month = fixedDigits(s, 5, 2);
  const day = fixedDigits(s, 8, 2);
  const time = clock(s, 11);
  const sep = s[10];
  if (year === undefined || month === undefined || day === undefined || time === undefined) return undefined;
  if (s[4] !== "-" || s[7] !== "-" || (sep !== "T" && sep !== "t" && sep !== " ")) return undefined;
  let i = 19;
  let fractionMs = 0;
  let resolutionMs = SECOND;
  if (s[i] === ".") {
    const from = ++i;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
    if (i === from) return undefined;
    fractionMs = Number(`0.${s.slice(from, i)}`) * SECOND;
    resolutionMs = SECOND * 10 ** -(i - from);
  }
  let offsetMs = 0;
  const zone = s[i];
  if (zone === "Z" || zone === "z") {
    i += 1;
  } else if (zone === "+" || zone === "-") {
    const oh = fixedDigits(s, i + 1, 2);
    const om = fixedDigits(s, i + 4, 2);
    if (oh === undefined || om === undefined || s[i + 3] !== ":" || oh > 23 || om > 59) return undefined;
    offsetMs = (zone === "+" ? 1 : -1) * (oh * 60 + om) * 60_000;
    i += 6;
  } else {
    return undefined;
  }
  if (i !== s.length) return undefined;
  const base = utc(year, month, day, ...time);
  return base === undefined ? undefined : { epochMs: base + fractionMs - offsetMs, resolutionMs };
}

/**
 * An HTTP date (RFC 9110 §5.6.7) in any of its three forms, as `Date` and `Retry-After`
 * carry them: `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT`,
 * `Sun Nov  6 08:49:37 1994`. The weekday is not checked against the date.
 */
export function parseHttpDate(s: string): number | undefined {
  const t = s.split(" ").filter((part) => part !== "");
  let year: number | undefined;
  let month: number | undefined;
  let day: number | undefined;
  let time: string | undefined;
  if (t.length === 6 && t[5] === "GMT" && isWeekday(t[0], true)) {
    // IMF-fixdate
    day = t[1]?.length === 2 ? fixedDigits(t[1], 0, 2) : undefined;
    month = MONTHS.get(t[2] ?? "");
    year = t[3]?.length === 4 ? fixedDigits(t[3], 0, 4) : undefined;
    time = t[4];
  } else if (t.length === 4 && t[3] === "GMT" && isWeekday(t[0], true)) {
    // rfc850-date: DD-Mon-YY, a two-digit year read as 1970-2069
    const d = t[1] ?? "";
    const yy = d.length === 9 && d[2] === "-" && d[6] === "-" ? fixedDigits(d, 7, 2) : undefined;
    day = fixedDigits(d, 0, 2);
    month = MONTHS.get(d.slice(3, 6));
    year = yy === undefined ? undefined : yy + (yy < 70 ? 2000 : 1900);
    time = t[2];
  } else if (t.length === 5 && isWeekday(t[0], false)) {
    // asctime-date
    const d = t[2] ?? "";
    month = MONTHS.get(t[1] ?? "");
    day = d.length === 1 || d.length === 2 ? fixedDigits(d, 0, d.length) : undefined;
    year = t[4]?.length === 4 ? fixedDigits(t[4], 0, 4) : undefined;
    time = t[3];
  }
  const hms = time?.length === 8 ? clock(time, 0) : undefined;
  if (year === undefined || month === undefined || day === undefined || hms === undefined) return undefined;
  return utc(year, month, day, ...hms);
}

/** A weekday name's shape: 3 to 9 ASCII letters, with a trailing comma where the form has one. */
function isWeekday(token: string | undefined, comma: boolean): boolean {
  if (token === undefined) return false;
  const end = comma ? token.length - 1 : token.length;
  if (comma && token[end] !== ",") return false;
  if (end < 3 || end > 9) return false;
  for (let i = 0; i < end; i++) {
    const c = token.charCodeAt(i) | 0x20;
    if (c < 97 || c > 122) return false;
  }
  return true;
}
