/** A stretch between two 429 episodes shorter than this measures nothing: it is mostly calls sent before the first. */
export const MIN_SPAN_MS = 10_000;
/** The discovered rate is this share of what the provider served between two 429 episodes. */
export const RATE_MARGIN = 1;
/** One more call a minute per this many successes: at saturation, about 5% a minute. */
export const GROWTH_EVERY = 5;
/** An episode cuts the discovered rate at most this deep (a stretch of low demand measures little). */
export const DEEPEST_CUT = 0.5;
/**
 * A 429's retry hint this long or longer measures no rate: a fixed window's turn (Gemini's RetryInfo), or a bucket
 * so slow (12 RPM or less) that the pause for each hint paces it alone. A bucket's hint is the time for one call.
 */
export const LONG_HINT_MS = 5_000;
/** The discovered budget's burst, a share of its rate: with {@link RATE_MARGIN}, a minute's admissions stay in one. */
export const BURST_SHARE = 0.1;

/**
 * The request rate a provider that reports nothing serves, measured between its 429 episodes: the calls
 * admitted after one episode and served before the next, over the time between them, less a margin
 * ({@link RATE_MARGIN}). Calls are taken as alike, so a token quota is learned as the calls a minute it admits.
 * A later episode lowers it to what was served (never raises it, never below {@link DEEPEST_CUT} of it);
 * successes raise it by one call a minute per {@link GROWTH_EVERY}, so that a quota raised is found again.
 */
export class ServedRate {
  /** Calls a minute, once two episodes far enough apart measured it. */
  perMinute: number | undefined;
  /** When the episode that opened the stretch being measured began. */
  private openedAt: number | undefined;
  /** Admissions counted then: a call admitted by then was sent before the provider ran dry. */
  private openedSeq = 0;
  /** Calls admitted after {@link openedSeq} and served since. */
  private servedSince = 0;
  /** Successes since the last step of growth. */
  private sinceGrowth = 0;

  /** The call admitted `seq`th was served. Returns whether the rate changed. */
  served(seq: number): boolean {
    if (this.openedAt !== undefined && seq > this.openedSeq) this.servedSince++;
    if (this.perMinute === undefined || ++this.sinceGrowth < GROWTH_EVERY) return false;
    this.sinceGrowth = 0;
    this.perMinute++;
    return true;
  }

  /**
   * A 429 episode began at monotonic `now`, `admissions` counted so far, its 429's retry hint `hintMs`. Returns
   * whether the rate changed. An episode with a hint of {@link LONG_HINT_MS} or more measures nothing and opens no
   * stretch: the pause for its hint paces admission already, and across a window's turn what is served is no refill.
   */
  episode(admissions: number, now: number, hintMs: number | undefined): boolean {
    if (hintMs !== undefined && hintMs >= LONG_HINT_MS) {
      this.openedAt = undefined;
      return false;
    }
    if (this.openedAt === undefined) return this.open(admissions, now);
    const span = now - this.openedAt;
    if (span < MIN_SPAN_MS) return false;
    const measured = Math.max(1, Math.floor(((this.servedSince * 60_000) / span) * RATE_MARGIN));
    const before = this.perMinute;
    this.perMinute =
      before === undefined ? measured : Math.min(before, Math.max(measured, Math.ceil(before * DEEPEST_CUT)));
    this.sinceGrowth = 0;
    this.open(admissions, now);
    return this.perMinute !== before;
  }

  /** Opens the stretch to measure at the episode of `now`; returns false (the rate is unchanged). */
  private open(admissions: number, now: number): false {
    this.openedAt = now;
    this.openedSeq = admissions;
    this.servedSince = 0;
    return false;
  }
}
