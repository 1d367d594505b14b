/**
 * How late this limiter's timers fire: the event loop's lag, as its own alarms
 * see it. A timer that fires late tells that the loop could run nothing in
 * between (other callbacks, garbage collection, a starved CPU), so calls the
 * limiter admitted just before may not have left the process yet; and the
 * loop that was that late is likely to be late again. Admission then widens
 * the arrival allowance (`arrivalDelayMs`) by the lag seen lately, and holds
 * the draws still on their way back by each stall.
 *
 * Read on the limiter's clock only, so virtual time, whose timers fire when
 * due, sees none: `simulate()` and the tests stay exact. Nothing here needs a
 * runtime's API. The lag is untrusted in the sense of being bounded: a stall
 * counts for at most {@link MAX_LAG_MS} (a laptop's sleep is no lag), and
 * what it widens decays by half every {@link LAG_HALF_LIFE_MS}, so a process
 * once suspended does not keep a wide allowance for ever.
 */
export class LoopLag {
  /** The largest lateness seen lately, as of `peakAt` (decays from there). */
  private peakMs = 0;
  private peakAt = 0;
  /** The last stall passed on, [`stallFrom`, `stallTo`]: two alarms late by one stall count it once. */
  private stallFrom = -Infinity;
  private stallTo = -Infinity;
  private readonly listeners: ((since: number, ms: number) => void)[] = [];

  /**
   * A timer set at monotonic `armedAt` to fire at `dueAt` fired at `now`.
   * Earlier than due (a runtime whose timers run on another clock) counts as
   * on time.
   */
  fired(armedAt: number, dueAt: number, now: number): void {
    const lateMs = Math.min(now - dueAt, MAX_LAG_MS);
    // `>` is also false for NaN: a clock that reads nonsense is no lag.
    if (!(lateMs > 0)) return;
    if (lateMs > this.widening(now)) {
      this.peakMs = lateMs;
      this.peakAt = now;
    }
    // The loop was busy from the due time to now, and likely before: a stall that made a timer late by `lateMs` is
    // taken to have begun as long before it was due (not before it was set), so that a stall from the moment a
    // burst was admitted, which a timer set then sees only in part, still holds the whole burst back.
    const from = Math.max(armedAt, dueAt - lateMs, now - MAX_LAG_MS);
    // Only the part no earlier report covered is new (two timers late by one stall count it once).
    const ms = from >= this.stallTo ? now - from : Math.max(0, this.stallFrom - from) + (now - this.stallTo);
    this.stallFrom = from >= this.stallTo ? from : Math.min(from, this.stallFrom);
    this.stallTo = now;
    if (ms > 0) for (const listener of this.listeners) listener(from, ms);
  }

  /** Ms the arrival allowance is widened by at monotonic `now`: the lag seen lately, decaying. */
  widening(now: number): number {
    if (this.peakMs === 0) return 0;
    const ms = this.peakMs * 2 ** (-Math.max(0, now - this.peakAt) / LAG_HALF_LIFE_MS);
    // Below a millisecond it is noise (timers count whole ones): nothing to compute on later admissions.
    if (ms < 1) this.peakMs = 0;
    return ms < 1 ? 0 : ms;
  }

  /**
   * Calls `listener(since, ms)` for each stall of the loop: it lasted `ms` (counted once, however many timers it
   * made late), at some time after monotonic `since`.
   */
  onStall(listener: (since: number, ms: number) => void): void {
    this.listeners.push(listener);
  }
}

/** The most one stall counts for: the longest `arrivalDelayMs`, a minute (a suspended process is not lagging). */
export const MAX_LAG_MS = 60_000;

/**
 * How fast a widening decays: by half every 10 s. A loaded loop's timers fire late again within that (the admission
 * pump fires at least every few seconds while calls wait), which renews it; an idle one lets it go.
 */
export const LAG_HALF_LIFE_MS = 10_000;
