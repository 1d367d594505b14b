import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextBoundary, periodStart, type CalendarPeriod } from "../../src/core/calendar.js";
import { numRuns } from "./runs.js";

/** Offsets and their changes in these zones fall on a 15-minute grid (modern dates). */
const STEP = 15 * 60_000;
const ZONES = [
  "America/Los_Angeles",
  "Europe/Berlin",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "UTC",
  "America/Santiago",
];
const DAY = 86_400_000;

/** The model: the period an instant's wall clock shows, as a string, read with a formatter of its own. */
const modelFormats = new Map<string, Intl.DateTimeFormat>();
function key(epochMs: number, period: CalendarPeriod, zone: string): string {
  let format = modelFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      hourCycle: "h23",
    });
    modelFormats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(epochMs).map((p) => [p.type, p.value]));
  const [y, m, d] = [Number(parts.year), Number(parts.month), Number(parts.day)];
  if (period === "hour") return `${y}-${m}-${d} ${parts.hour}`;
  if (period === "day") return `${y}-${m}-${d}`;
  if (period === "month") return `${y}-${m}`;
  const date = Date.UTC(y, m - 1, d);
  return String(date - ((new Date(date).getUTCDay() + 6) % 7) * DAY);
}

/** Brute force: step the grid until the wall clock shows another period. */
function modelNext(t: number, period: CalendarPeriod, zone: string): number {
  const k = key(t, period, zone);
  let u = Math.floor(t / STEP) * STEP + STEP;
  while (key(u, period, zone) === k) u += STEP;
  return u;
}

function modelStart(t: number, period: CalendarPeriod, zone: string): number {
  const k = key(t, period, zone);
  let u = Math.floor(t / STEP) * STEP;
  while (key(u - 1, period, zone) === k) u -= STEP;
  return u;
}

describe("calendar periods against brute-force stepping of the wall clock", () => {
  it("periodStart and nextBoundary bound the run of instants that show the same period", () => {
    fc.assert(
      fc.property(
        // 1995-2045, denser around the daylight-saving changes of March-April and September-November.
        fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2045, 0, 1) }),
        fc.constantFrom(...ZONES),
        fc.constantFrom<CalendarPeriod>("hour", "day", "week", "month"),
        (t, zone, period) => {
          expect(nextBoundary(t, period, zone)).toBe(modelNext(t, period, zone));
          expect(periodStart(t, period, zone)).toBe(modelStart(t, period, zone));
        },
      ),
      { numRuns: numRuns(200) },
    );
  });

  it("holds right around daylight-saving changes", () => {
    const changes = [
      Date.UTC(2026, 2, 8, 10), // Los Angeles forward
      Date.UTC(2026, 10, 1, 9), // Los Angeles back
      Date.UTC(2026, 2, 29, 1), // Berlin forward
      Date.UTC(2026, 9, 25, 1), // Berlin back
      Date.UTC(2026, 3, 4, 15), // Lord Howe back
      Date.UTC(2026, 9, 3, 15, 30), // Lord Howe forward
      Date.UTC(2026, 8, 6, 4), // Santiago forward (at midnight)
      Date.UTC(2026, 3, 5, 3), // Santiago back (at midnight)
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...changes),
        fc.integer({ min: -3 * 3_600_000, max: 3 * 3_600_000 }),
        fc.constantFrom(...ZONES),
        fc.constantFrom<CalendarPeriod>("hour", "day"),
        (change, offset, zone, period) => {
          const t = change + offset;
          expect(nextBoundary(t, period, zone)).toBe(modelNext(t, period, zone));
          expect(periodStart(t, period, zone)).toBe(modelStart(t, period, zone));
        },
      ),
      { numRuns: numRuns(400) },
    );
  });
});
