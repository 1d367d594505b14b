import { describe, expect, it } from "vitest";
import { nextBoundary, periodStart, type CalendarPeriod } from "../../src/core/calendar.js";

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();
const H = 3_600_000;

/** [zone, instant, period, expected start, expected next boundary] */
const cases: [string, string, CalendarPeriod, string, string][] = [
  // Los Angeles: clocks forward 2026-03-08 02:00 PST (a 23-hour day), back 2026-11-01 02:00 PDT (25 hours).
  ["America/Los_Angeles", "2026-03-08T12:00:00Z", "day", "2026-03-08T08:00:00.000Z", "2026-03-09T07:00:00.000Z"],
  ["America/Los_Angeles", "2026-11-01T12:00:00Z", "day", "2026-11-01T07:00:00.000Z", "2026-11-02T08:00:00.000Z"],
  // 01:00-02:00 shown twice: one run of two hours.
  ["America/Los_Angeles", "2026-11-01T09:30:00Z", "hour", "2026-11-01T08:00:00.000Z", "2026-11-01T10:00:00.000Z"],
  // 02:00-03:00 skipped: 01:xx's hour ends at the change, which begins 03:00's.
  ["America/Los_Angeles", "2026-03-08T09:30:00Z", "hour", "2026-03-08T09:00:00.000Z", "2026-03-08T10:00:00.000Z"],
  ["America/Los_Angeles", "2026-03-08T10:00:00Z", "hour", "2026-03-08T10:00:00.000Z", "2026-03-08T11:00:00.000Z"],
  // Berlin: forward 2026-03-29 02:00 CET, back 2026-10-25 03:00 CEST.
  ["Europe/Berlin", "2026-03-29T12:00:00Z", "day", "2026-03-28T23:00:00.000Z", "2026-03-29T22:00:00.000Z"],
  ["Europe/Berlin", "2026-10-25T12:00:00Z", "day", "2026-10-24T22:00:00.000Z", "2026-10-25T23:00:00.000Z"],
  ["Europe/Berlin", "2026-03-29T00:59:00Z", "month", "2026-02-28T23:00:00.000Z", "2026-03-31T22:00:00.000Z"],
  ["Europe/Berlin", "2026-10-28T12:00:00Z", "week", "2026-10-25T23:00:00.000Z", "2026-11-01T23:00:00.000Z"],
  // Lord Howe: half-hour shifts; back 2026-04-05 02:00 (+11) to 01:30 (+10:30), forward 2026-10-04 02:00 to 02:30.
  ["Australia/Lord_Howe", "2026-04-04T15:10:00Z", "hour", "2026-04-04T14:00:00.000Z", "2026-04-04T15:30:00.000Z"],
  ["Australia/Lord_Howe", "2026-04-04T15:10:00Z", "day", "2026-04-04T13:00:00.000Z", "2026-04-05T13:30:00.000Z"],
  ["Australia/Lord_Howe", "2026-10-04T12:00:00Z", "day", "2026-10-03T13:30:00.000Z", "2026-10-04T13:00:00.000Z"],
  ["Australia/Lord_Howe", "2026-10-03T15:20:00Z", "hour", "2026-10-03T14:30:00.000Z", "2026-10-03T15:30:00.000Z"],
  // Kolkata: +05:30 all year; 2026-04-04 is a Saturday.
  ["Asia/Kolkata", "2026-04-04T15:10:00Z", "week", "2026-03-29T18:30:00.000Z", "2026-04-05T18:30:00.000Z"],
  ["Asia/Kolkata", "2026-04-04T15:10:00Z", "hour", "2026-04-04T14:30:00.000Z", "2026-04-04T15:30:00.000Z"],
  ["Asia/Kolkata", "2026-12-31T19:00:00Z", "month", "2026-12-31T18:30:00.000Z", "2027-01-31T18:30:00.000Z"],
  ["UTC", "2026-12-31T23:59:59.999Z", "month", "2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"],
  ["UTC", "2028-02-29T00:00:00.000Z", "day", "2028-02-29T00:00:00.000Z", "2028-03-01T00:00:00.000Z"],
  ["UTC", "2026-12-06T23:59:59.999Z", "week", "2026-11-30T00:00:00.000Z", "2026-12-07T00:00:00.000Z"],
  // Santiago: clocks forward at midnight (2026-09-06 00:00 -04 to 01:00 -03): that day begins at 01:00.
  ["America/Santiago", "2026-09-06T04:30:00Z", "day", "2026-09-06T04:00:00.000Z", "2026-09-07T03:00:00.000Z"],
];

describe("calendar periods", () => {
  it.each(cases)("%s %s %s", (zone, instant, period, start, next) => {
    expect(iso(periodStart(at(instant), period, zone))).toBe(start);
    expect(iso(nextBoundary(at(instant), period, zone))).toBe(next);
  });

  it("a boundary instant is the start of its own period, and the next one is a whole period on", () => {
    const midnight = at("2026-11-02T08:00:00Z"); // Los Angeles
    expect(periodStart(midnight, "day", "America/Los_Angeles")).toBe(midnight);
    expect(nextBoundary(midnight, "day", "America/Los_Angeles")).toBe(midnight + 24 * H);
    expect(nextBoundary(midnight - 1, "day", "America/Los_Angeles")).toBe(midnight);
  });

  it("refuses an unknown zone, period or instant with a clear error", () => {
    expect(() => nextBoundary(0, "day", "Mars/Olympus_Mons")).toThrow(
      new TypeError("unknown time zone: Mars/Olympus_Mons"),
    );
    expect(() => periodStart(0, "day", "")).toThrow(TypeError);
    expect(() => nextBoundary(0, "day", 42 as unknown as string)).toThrow(TypeError);
    expect(() => nextBoundary(0, "fortnight" as CalendarPeriod, "UTC")).toThrow(TypeError);
    expect(() => nextBoundary(Number.NaN, "day", "UTC")).toThrow(TypeError);
    expect(() => nextBoundary(8.64e15, "day", "UTC")).toThrow(RangeError);
  });

  it("makes one formatter per zone, not one per call", () => {
    const made = { count: 0 };
    const Original = Intl.DateTimeFormat;
    const spy = function (this: unknown, ...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      made.count++;
      return new Original(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    Intl.DateTimeFormat = spy;
    try {
      for (let i = 0; i < 100; i++) nextBoundary(i * H, "day", "Pacific/Chatham");
    } finally {
      Intl.DateTimeFormat = Original;
    }
    expect(made.count).toBe(1);
  });
});
