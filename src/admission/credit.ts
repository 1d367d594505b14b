/**
 * A lone head books credit when it is the latest of {@link CREDIT_STREAK}
 * requests in a row that each came within this many ms of the admission
 * before it, with nothing queued: a caller awaiting one admission after
 * another, whatever a round trip takes, whose next request is likely to come
 * as soon.
 */
export const CREDIT_HOT_MS = 1;
/** See {@link CREDIT_HOT_MS}: so many requests in a row are not calls that happened to meet. */
export const CREDIT_STREAK = 3;
/**
 * Credit is held at most this long (ms) from the booking that started it; what
 * is unused then goes back to the store. A caller admitting one request a
 * millisecond, the slowest that books credit, uses a full credit within it. A
 * call admitted from credit reaches the provider at most this much later than
 * one admitted by its booking would, so a booking with credit holds refill
 * back that much longer (see {@link SharedLayout.arrivalDelayMs}).
 */
export const CREDIT_MS = 20;
/**
 * Credit is booked for this many requests like the head, or for one more
 * batch like the one it comes with when that holds more (callers in a loop,
 * admitted together, come back together)…
 */
export const CREDIT_REQUESTS = 16;
/** …and no more of a bucket than this share of its capacity. */
export const CREDIT_SHARE = 1 / 64;
/**
 * Credit is booked, and kept, only while every bucket stays at least this
 * share of its capacity full after it: a bucket that full has nobody waiting
 * on it, so what the credit holds is taken from nobody.
 */
export const CREDIT_FLOOR = 1 / 2;

/**
 * Room a process booked in the shared store ahead of its own requests, per
 * dimension (the layout's order): a caller admitting one request after another
 * takes from it with no round trip, so a lone caller pays one round trip per
 * {@link CREDIT_REQUESTS} admissions instead of one each; callers in a loop,
 * admitted together, take their next batch from it, one round trip per two. The store counted it
 * as drawn when it was booked, so no process can over-admit through it; what is
 * unused goes back (`onReturn`) {@link CREDIT_MS} after the booking that
 * started it, and at once when something must reach every admission that the
 * credit would admit past (a pause, a lowered level, a booking for later,
 * closing).
 */
export class Credit {
  /** What is left per dimension; empty while there is no credit. */
  private left: number[] = [];
  /** The marks of the booking that last added to it: those of every request admitted from it. */
  private marks: readonly number[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly onReturn: (left: readonly number[]) => void) {}

  /**
   * What to book after a batch of `requests` costing `costs` in all (a lone
   * head: one), to top the credit up, from the levels as last seen and the
   * capacities; `undefined`: nothing (no room for a request like theirs, or a
   * bucket would fall under the floor).
   */
  want(
    costs: readonly number[],
    requests: number,
    levels: readonly number[],
    capacities: readonly number[],
  ): number[] | undefined {
    const slice: number[] = [];
    const times = Math.max(1, CREDIT_REQUESTS / requests);
    let any = false;
    for (let i = 0; i < costs.length; i++) {
      const cost = costs[i]!;
      const capacity = capacities[i]!;
      const target = Math.min(cost * times, capacity * CREDIT_SHARE);
      if (target < cost / requests) return undefined;
      const more = Math.max(0, target - (this.left[i] ?? 0));
      if (target > 0 && levels[i]! - cost - more < capacity * CREDIT_FLOOR) return undefined;
      slice.push(more);
      any ||= more > 0;
    }
    return any ? slice : undefined;
  }

  /** `slice`, booked with `marks`, is added; held until {@link CREDIT_MS} after the booking that started the credit. */
  add(slice: readonly number[], marks: readonly number[]): void {
    this.left = slice.map((amount, i) => amount + (this.left[i] ?? 0));
    this.marks = marks;
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.end(), CREDIT_MS);
    // Credit serves calls to come; it must not keep the process alive.
    this.timer.unref?.();
  }

  /** Takes `costs` when every dimension's credit covers them: the marks to admit with; else `undefined`. */
  take(costs: readonly number[]): readonly number[] | undefined {
    const left = this.left;
    if (left.length === 0) return undefined;
    for (let i = 0; i < left.length; i++) if (costs[i]! > left[i]!) return undefined;
    for (let i = 0; i < left.length; i++) left[i]! -= costs[i]!;
    return this.marks;
  }

  /** Whether there is credit to take from. */
  get held(): boolean {
    return this.left.length > 0;
  }

  /** What dimension `index` holds now: header sync takes it off a reading, which has not seen it drawn. */
  heldOn(index: number): number {
    return this.left[index] ?? 0;
  }

  /** Whether `levels`, the store's after booking `slice`, leave room for it (see {@link CREDIT_FLOOR}). */
  static fits(slice: readonly number[], levels: readonly number[], capacities: readonly number[]): boolean {
    return slice.every((amount, i) => amount === 0 || levels[i]! >= capacities[i]! * CREDIT_FLOOR);
  }

  /** Gives what is left back (through `onReturn`) and holds nothing. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const left = this.left;
    this.left = [];
    if (left.some((amount) => amount > 0)) this.onReturn(left);
  }
}
