import { ADMISSION_TOLERANCE } from "./meter.js";
import type { Meter } from "./meter.js";

/**
 * A continuously refilled token bucket: capacity = `limit`, refilled at
 * `limit / periodMs` per millisecond, full at creation.
 */
export class ContinuousBucket implements Meter {
  readonly limit: number;
  readonly #periodMs: number;
  #level: number;
  #updatedAt: number;

  constructor(limit: number, periodMs: number, now: number) {
    this.limit = limit;
    this.#periodMs = periodMs;
    this.#level = limit;
    this.#updatedAt = now;
  }

  level(now: number): number {
    this.#refill(now);
    return this.#level;
  }

  waitMs(cost: number, now: number): number {
    if (cost > this.limit + ADMISSION_TOLERANCE) return Infinity;
    const deficit = cost - this.level(now);
    // Multiply by period/limit rather than divide by a rate: 1 request at
    // 100/min is exactly 600 ms, not 599.9999999999999.
    return deficit <= ADMISSION_TOLERANCE ? 0 : (deficit * this.#periodMs) / this.limit;
  }

  take(amount: number, now: number): number {
    this.#refill(now);
    this.#level -= amount;
    return 0;
  }

  refund(amount: number, now: number): void {
    // Refill first: a refund added on top of a stale level would over-grant.
    this.#refill(now);
    this.#level = Math.min(this.limit, this.#level + amount);
  }

  /**
   * Time to full from the exact level, as Groq's `2m59.56s` for 30 requests of
   * 14400/day taken 440 ms earlier shows; within one unit's refill time of
   * (limit - remaining) x period / limit for the floored `remaining`.
   */
  resetMs(now: number): number {
    const missing = this.limit - this.level(now);
    return missing <= ADMISSION_TOLERANCE ? 0 : (missing * this.#periodMs) / this.limit;
  }

  #refill(now: number): void {
    if (now <= this.#updatedAt) return;
    const refilled = ((now - this.#updatedAt) * this.limit) / this.#periodMs;
    this.#level = Math.min(this.limit, this.#level + refilled);
    this.#updatedAt = now;
  }
}
