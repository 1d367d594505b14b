import { MAX_TIMEOUT_MS, type Clock } from "../core/clock.js";

/**
 * How late an alarm may fire after its due time on a free event loop: timers
 * count whole milliseconds, so a fractional delay is rounded up.
 */
export const ALARM_LATENESS_MS = 1;

/**
 * One re-armable timer that calls `onFire` once the clock reaches the due
 * time: never early (an early or capped wake-up re-arms for the rest).
 */
export class Alarm {
  private handle: ReturnType<typeof setTimeout> | undefined;
  private due = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly onFire: () => void,
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
    const delay = Math.min(Math.max(0, Math.ceil(this.due - this.clock.now())), MAX_TIMEOUT_MS);
    this.handle = setTimeout(this.fire, delay);
  }

  private readonly fire = (): void => {
    if (this.clock.now() < this.due) {
      this.arm();
      return;
    }
    this.handle = undefined;
    this.due = Infinity;
    this.onFire();
  };
}
