import { ADMISSION_TOLERANCE } from "./meter.js";
import type { Meter } from "./meter.js";

/**
 * A fixed-window counter: at most `limit` units per window, windows aligned to
 * multiples of `windowMs` on the monotonic clock, the count dropped at each
 * boundary. Deliberately reproduces the boundary artefact (a burst at the end
 * of one window plus one at the start of the next) that real fixed-window
 * servers have.
 */
export class FixedWindowCounter implements Meter {
  readonly limit: number;
  readonly #windowMs: number;
  #epoch: number;
  #used = 0;

  constructor(limit: number, windowMs: number, now: number) {
    this.limit = limit;
    this.#windowMs = windowMs;
    this.#epoch = this.#epochAt(now);
  }

  level(now: number): number {
    this.#roll(now);
    return this.limit - this.#used;
  }

  waitMs(cost: number, now: number): number {
    if (cost > this.limit + ADMISSION_TOLERANCE) return Infinity;
    if (cost <= this.level(now) + ADMISSION_TOLERANCE) return 0;
    return this.resetMs(now);
  }

  take(amount: number, now: number): number {
    this.#roll(now);
    this.#used += amount;
    return this.#epoch;
  }

  refund(amount: number, now: number, epoch: number): void {
    this.#roll(now);
    // The window the charge was made in is gone: its count no longer exists.
    if (epoch === this.#epoch) this.#used -= amount;
  }

  resetMs(now: number): number {
    this.#roll(now);
    return (this.#epoch + 1) * this.#windowMs - now;
  }

  #epochAt(now: number): number {
    return Math.floor(now / this.#windowMs);
  }

  #roll(now: number): void {
    const epoch = this.#epochAt(now);
    if (epoch <= this.#epoch) return;
    this.#epoch = epoch;
    this.#used = 0;
  }
}
