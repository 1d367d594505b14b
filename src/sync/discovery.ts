/**
 * Calls in flight before the first response tells whether headers come: one, as with no discovery at all, so a
 * 3-RPM free tier is sent 1, not 20. With two, the second call's draw predates the budget the first response's
 * headers create: that budget never counts it, yet the provider refunds its unused estimate, so the limiter's own
 * count stays below the honest remaining for good (slower than obeying the headers). Slow start doubles from there.
 */
export const DISCOVERY_START = 1;
/** The adaptive limit never goes past this many calls in flight. */
export const DISCOVERY_CEILING = 256;
/** A 429 episode multiplies the limit by this (floor 1): deep enough to clear a burst, shallow enough to keep most. */
export const DISCOVERY_BACKOFF = 0.7;

/**
 * An adaptive concurrency limit for a provider that reports no levels (AIMD, in the spirit of Netflix's
 * concurrency-limits). Until the first 429 every success of a call admitted since the last change adds one
 * (the limit doubles per round, as TCP's slow start); after it, one per round of successes (as many as the
 * limit). A 429 episode multiplies it by {@link DISCOVERY_BACKOFF}: only a 429 of a call admitted after the
 * last cut counts, as the share cuts of header sync do, since the calls sent before were sent on what was known
 * then and one burst of them is one piece of news. Per process: it is not shared through a store.
 */
export class AdaptiveConcurrency {
  /** The calls in flight it allows, in [1, {@link DISCOVERY_CEILING}]. */
  limit = DISCOVERY_START;
  /** Admissions counted at the last cut: a 429 of a call admitted by then is the same episode. */
  cutAtSeq = 0;
  /** Until the first cut, each success adds one. */
  private slowStart = true;
  /** Successes since the last step of growth, after the first cut. */
  private successes = 0;

  /**
   * The call admitted `seq`th succeeded, `inFlight` calls in flight with it. Returns whether the limit changed.
   * Only a limit at least half used grows (as concurrency-limits' AIMD): calls that arrive slower than the limit
   * allows say nothing about the provider, and a limit grown far past them would overshoot by as much at once.
   */
  served(seq: number, inFlight: number): boolean {
    if (seq <= this.cutAtSeq || this.limit >= DISCOVERY_CEILING || 2 * inFlight < this.limit) return false;
    if (!this.slowStart && ++this.successes < this.limit) return false;
    this.successes = 0;
    this.limit += 1;
    return true;
  }

  /** The call admitted `seq`th drew a 429, `admissions` counted so far. Returns whether the limit changed. */
  limited(seq: number, admissions: number): boolean {
    if (seq <= this.cutAtSeq) return false;
    this.cutAtSeq = admissions;
    this.slowStart = false;
    this.successes = 0;
    const before = this.limit;
    this.limit = Math.max(1, Math.floor(this.limit * DISCOVERY_BACKOFF));
    return this.limit !== before;
  }
}
