import { describe, expect, it } from "vitest";
import { untilDayTurns } from "../../src/core/day-quota.js";
import type { FailureClass } from "../../src/headers/index.js";

const HOUR = 3_600_000;
/** 2026-11-01 (Los Angeles goes back an hour at 02:00): 20:00 PST, 4 hours before Pacific midnight. */
const NOW = Date.UTC(2026, 10, 2, 4);

describe("untilDayTurns", () => {
  const perDay: FailureClass = { kind: "rate", perDay: true, quotaWindow: "day", dayTimeZone: "America/Los_Angeles" };

  it("waits for the zone's next midnight when that is longer than the body's hint", () => {
    expect(untilDayTurns({ ...perDay, retryAfterMs: 47_000 }, NOW).retryAfterMs).toBe(4 * HOUR);
    expect(untilDayTurns(perDay, NOW).retryAfterMs).toBe(4 * HOUR);
    // Across the 25-hour day: from 00:30 PDT the day has 24.5 hours to go.
    expect(untilDayTurns(perDay, Date.UTC(2026, 10, 1, 7, 30)).retryAfterMs).toBe(24.5 * HOUR);
  });

  it("keeps a longer hint, and leaves other failures as they are", () => {
    expect(untilDayTurns({ ...perDay, retryAfterMs: 5 * HOUR }, NOW).retryAfterMs).toBe(5 * HOUR);
    const { dayTimeZone: _, ...noZone } = perDay;
    for (const failure of [
      { ...noZone, retryAfterMs: 1_000 },
      { kind: "billing", perDay: true, dayTimeZone: "America/Los_Angeles" } as FailureClass,
      { kind: "rate", retryAfterMs: 1_000, dayTimeZone: "America/Los_Angeles" } as FailureClass,
      { ...perDay, dayTimeZone: "Nowhere/Special", retryAfterMs: 1_000 },
    ]) {
      expect(untilDayTurns(failure, NOW)).toBe(failure);
    }
    expect(untilDayTurns(perDay, Number.NaN)).toBe(perDay);
  });
});
