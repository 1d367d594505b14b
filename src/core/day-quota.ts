import type { FailureClass } from "../headers/failures.js";
import { nextBoundary } from "./calendar.js";

/** The longest wait a retry hint may ask for (as in src/headers/bounds.ts): a month. */
const MAX_RETRY_MS = 31 * 86_400_000;

/**
 * A per-day quota whose day turns at a documented midnight (`FailureClass.dayTimeZone`, Gemini's Pacific
 * one) holds until then: its retry hint becomes the wait to the zone's next midnight from the wall clock
 * `wallNow`, when that is longer than the body's own hint (Gemini's `RetryInfo` says "47s" on a spent day),
 * at most a month. Any other failure is returned as it is.
 */
export function untilDayTurns(failure: FailureClass, wallNow: number): FailureClass {
  if (failure.kind !== "rate" || failure.perDay !== true || failure.dayTimeZone === undefined) return failure;
  let midnight: number;
  try {
    midnight = nextBoundary(wallNow, "day", failure.dayTimeZone);
  } catch {
    return failure; // a wall clock out of range or a zone this runtime does not know: the body's hint stands
  }
  const ms = Math.min(MAX_RETRY_MS, midnight - wallNow);
  return ms > (failure.retryAfterMs ?? 0) ? { ...failure, retryAfterMs: ms } : failure;
}
