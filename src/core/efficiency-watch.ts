import type { Meter } from "./meter.js";
import { RESERVED, USED } from "./meter.js";

/** How often admissions look at the efficiency (a clock value they already hold, compared: nothing per call). */
const CHECK_EVERY_MS = 10_000;
/** After a warning, none again for this long: a setting to change, not an incident to page on. */
const QUIET_MS = 3_600_000;
/** Below this share of the tokens reserved used, the warning is due. */
export const LOW_EFFICIENCY = 0.5;
/** Reservations under this share of the limit cannot be what holds throughput back: no warning. */
const MIN_RESERVED_SHARE = 0.25;

/**
 * Warns (through `onWarning`, at most once an hour) when calls use less than
 * half of the tokens they reserve, over a whole window of a token dimension:
 * `max_tokens` 4096 for answers of 300 holds back 13 times what is used, and
 * lowering it is the cheapest throughput there is.
 */
export class EfficiencyWatch {
  /** Monotonic time of the next look. */
  nextCheckAt: number;
  private quietUntil = -Infinity;

  constructor(
    private readonly warn: (warning: Error) => void,
    /** Monotonic time the limiter started: a window must have passed before its efficiency means anything. */
    private readonly startedAt: number,
  ) {
    this.nextCheckAt = startedAt + CHECK_EVERY_MS;
  }

  check(now: number, meters: readonly Meter[]): void {
    this.nextCheckAt = now + CHECK_EVERY_MS;
    if (now < this.quietUntil) return;
    for (const meter of meters) {
      const { unit, windowMs, limit } = meter.dimension;
      if (unit === "requests" || now - this.startedAt < windowMs) continue;
      const reserved = meter.tally.sum(now, RESERVED);
      if (reserved < MIN_RESERVED_SHARE * limit) continue;
      const used = meter.tally.sum(now, USED);
      if (used >= LOW_EFFICIENCY * reserved) continue;
      this.quietUntil = now + QUIET_MS;
      this.warn(lowEfficiency(meter.name, used, reserved, windowMs));
      return;
    }
  }
}

function lowEfficiency(dimension: string, used: number, reserved: number, windowMs: number): Error {
  const percent = Math.round((100 * used) / reserved);
  const warning = new Error(
    `llm-limiter: calls used ${percent}% of the tokens they reserved on "${dimension}" over the last ` +
      `${Math.round(windowMs / 1000)} s (${Math.round(used)} of ${Math.round(reserved)}). Lower max_tokens (and the estimate) ` +
      `toward what answers use: trimming max_tokens is the cheapest throughput there is.`,
  );
  warning.name = "ReservationEfficiencyWarning";
  return warning;
}
