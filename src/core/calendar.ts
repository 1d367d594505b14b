/**
 * Calendar periods in an IANA time zone: where the hour, day, ISO week (from Monday) or month of an instant
 * began and when the next one begins, as the zone's wall clock shows them. A period is the whole run of
 * instants whose wall clock shows the same hour (day, week, month): across a daylight-saving change a day
 * lasts 23 or 25 hours (23.5 or 24.5 on Lord Howe Island), an hour repeated when clocks go back is one run of
 * two hours, and a period whose wall start is skipped when clocks go forward begins at the change. Pure; one
 * `Intl.DateTimeFormat` per zone, cached.
 */

/** A calendar period: `"week"` is the ISO week, from Monday 00:00. */
export type CalendarPeriod = "hour" | "day" | "week" | "month";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** 400 Gregorian years, in ms: `Date.UTC` reads years 0-99 as 1900-1999, so those are shifted by this. */
const FOUR_CENTURIES = 146_097 * DAY;
/** Instants from 0001-01-03 to 9999-11-30 UTC: every period around them has a four-digit year in every zone. */
const MIN_EPOCH_MS = -62_135_596_800_000 + 2 * DAY;
const MAX_EPOCH_MS = 253_402_300_799_999 - 31 * DAY;
/** Distinct zone names kept formatters for; past this the oldest is dropped (names come from the caller). */
const MAX_CACHED_ZONES = 256;
const PERIODS: ReadonlySet<string> = new Set<CalendarPeriod>(["hour", "day", "week", "month"]);

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter, made once; a TypeError for a name `Intl` does not know. */
function formatOf(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format !== undefined) return format;
  if (typeof timeZone !== "string" || timeZone.length === 0 || timeZone.length > 64) {
    throw new TypeError(`timeZone must be an IANA time zone name, got ${String(timeZone).slice(0, 64)}`);
  }
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    throw new TypeError(`unknown time zone: ${timeZone}`);
  }
  if (formats.size >= MAX_CACHED_ZONES) formats.delete(formats.keys().next().value!);
  formats.set(timeZone, format);
  return format;
}

/** Epoch ms of a proleptic Gregorian date and time read as UTC, years 0-99 included. */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return year >= 100
    ? Date.UTC(year, month - 1, day, hour, minute, second)
    : Date.UTC(year + 400, month - 1, day, hour, minute, second) - FOUR_CENTURIES;
}

/** The wall clock of `epochMs` in the zone of `format`, as epoch ms read as UTC. */
function wallAt(format: Intl.DateTimeFormat, epochMs: number): number {
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const part of format.formatToParts(epochMs)) {
    switch (part.type) {
      case "year":
        year = Number(part.value);
        break;
      case "month":
        month = Number(part.value);
        break;
      case "day":
        day = Number(part.value);
        break;
      case "hour":
        hour = Number(part.value);
        break;
      case "minute":
        minute = Number(part.value);
        break;
      case "second":
        second = Number(part.value);
        break;
      case "era":
        bc = part.value === "BC";
        break;
    }
  }
  const millis = ((epochMs % 1000) + 1000) % 1000;
  return utc(bc ? 1 - year : year, month, day, hour, minute, second) + millis;
}

/** Where, on the wall clock `wall` (epoch ms read as UTC), the period holding it began. */
function wallPeriodStart(wall: number, period: CalendarPeriod): number {
  const date = new Date(wall);
  switch (period) {
    case "hour":
      return wall - (((wall % HOUR) + HOUR) % HOUR);
    case "day":
      return wall - (((wall % DAY) + DAY) % DAY);
    case "week": {
      const midnight = wall - (((wall % DAY) + DAY) % DAY);
      return midnight - ((date.getUTCDay() + 6) % 7) * DAY; // Monday is 0 days back, Sunday 6
    }
    case "month":
      return utc(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
}

/** The wall-clock start of the period after the one holding `wall`. */
function wallNextStart(wall: number, period: CalendarPeriod): number {
  const start = wallPeriodStart(wall, period);
  if (period === "hour") return start + HOUR;
  if (period === "week") return start + 7 * DAY;
  // A day or a month: the next wall date's midnight (read as UTC, so no daylight saving).
  const next = new Date(period === "day" ? start + DAY + 12 * HOUR : start + 32 * DAY);
  return period === "day"
    ? utc(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate())
    : utc(next.getUTCFullYear(), next.getUTCMonth() + 1, 1);
}

/**
 * The instants where the zone's wall clock first reaches `wall` (from below), near it: the wall time less
 * each offset in force within a day of it (zones change offset at most once in two days).
 */
function crossings(format: Intl.DateTimeFormat, wall: number): number[] {
  const found: number[] = [];
  const guess = wall - (wallAt(format, wall) - wall);
  for (const probe of [guess - DAY, guess, guess + DAY]) {
    const at = wall - (wallAt(format, probe) - probe);
    if (found.includes(at)) continue;
    if (wallAt(format, at) >= wall && wallAt(format, at - 1) < wall) found.push(at);
  }
  return found;
}

function check(epochMs: number, period: CalendarPeriod, timeZone: string): Intl.DateTimeFormat {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) {
    throw new TypeError(`epochMs must be a finite number, got ${String(epochMs)}`);
  }
  if (epochMs < MIN_EPOCH_MS || epochMs > MAX_EPOCH_MS) {
    throw new RangeError(`epochMs must be between years 1 and 9999, got ${epochMs}`);
  }
  if (!PERIODS.has(period)) throw new TypeError(`period must be hour, day, week or month, got ${String(period)}`);
  return formatOf(timeZone);
}

/**
 * When the `period` (hour, day, ISO week, month) holding `epochMs` began in `timeZone`, in epoch ms: the
 * first instant of the run whose wall clock shows that period (see the module notes on daylight saving).
 *
 * @throws TypeError for an unknown zone, an unknown period or a non-finite instant; RangeError for an
 *   instant outside years 1-9999.
 */
export function periodStart(epochMs: number, period: CalendarPeriod, timeZone: string): number {
  const format = check(epochMs, period, timeZone);
  const start = wallPeriodStart(wallAt(format, epochMs), period);
  let best = Number.NEGATIVE_INFINITY;
  for (const at of crossings(format, start)) if (at <= epochMs && at > best) best = at;
  // Unreachable for real zones: a wall clock reaches the start of its own period before `epochMs`.
  return best === Number.NEGATIVE_INFINITY ? epochMs - (wallAt(format, epochMs) - start) : best;
}

/**
 * When the `period` after the one holding `epochMs` begins in `timeZone`, in epoch ms (always later than
 * `epochMs`): the next midnight for `"day"` (23 to 25 hours after the last one across daylight-saving
 * changes), the next Monday 00:00 for `"week"`, the 1st at 00:00 for `"month"`.
 *
 * @throws TypeError for an unknown zone, an unknown period or a non-finite instant; RangeError for an
 *   instant outside years 1-9999.
 */
export function nextBoundary(epochMs: number, period: CalendarPeriod, timeZone: string): number {
  const format = check(epochMs, period, timeZone);
  const next = wallNextStart(wallAt(format, epochMs), period);
  let best = Number.POSITIVE_INFINITY;
  for (const at of crossings(format, next)) if (at > epochMs && at < best) best = at;
  return best === Number.POSITIVE_INFINITY ? Math.max(epochMs + MINUTE, next - (wallAt(format, next) - next)) : best;
}
