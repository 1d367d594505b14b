import { MAX_TIMEOUT_MS, type Clock } from "../core/clock.js";
import type { LoopLag } from "../core/loop-lag.js";

/**
 * How late an alarm may fire after its due time on a free event loop: timers
 * count whole milliseconds, so a fractional delay is rounded up.
 */
export const ALARM_LATENESS_MS = 1;

/**
 * One re-armable timer that calls `onFire` once the clock reaches the due
 * time: never early (an early or capped wake-up re-arms for the rest). It
 * tells `lag` how late each timer fired against the time it was set for.
 */
export class Alarm {
  private handle: ReturnType<typeof setTimeout> | undefined;
  private due = Infinity;
  /** When the timer was set, and when it should fire: the clock then plus the delay asked for. */
  private armedAt = 0;
  private expected = 0;

  constructor(
    private readonly clock: Clock,
    private readonly onFire: () => void,
    private readonly lag?: LoopLag,
  ) {}

  /** Fires at monotonic time `due` (replacing any earlier setting); `Infinity` clears. */
  set(due: number): void {
    if (due === this.due && this.handle !== undefined) return;
    this.clear();
    if (due === Infinity) return;
    this.due = due;
    this.arm();
  }

  clear(): void {
    if (this.handle !== undefined) clearTimeout(this.handle);
    this.handle = undefined;
    this.due = Infinity;
  }

  private arm(): void {
    const now = this.clock.now();
    const delay = Math.min(Math.max(0, Math.ceil(this.due - now)), MAX_TIMEOUT_MS);
    this.armedAt = now;
    this.expected = now + delay;
    this.handle = setTimeout(this.fire, delay);
  }

  private readonly fire = (): void => {
    const now = this.clock.now();
    // Before onFire, which may refill the buckets: a stall must hold back the draws it delayed first.
    this.lag?.fired(this.armedAt, this.expected, now);
    if (now < this.due) {
      this.arm();
      return;
    }
    this.handle = undefined;
    this.due = Infinity;
    this.onFire();
  };
}
