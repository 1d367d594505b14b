/**
 * A pause longer than this is probed: it is in force a stretch of this long at a time, the first call
 * admitted after a stretch (through the buckets, as any call) starts the next one, and a later response
 * that shows room ends it. One probe a minute costs a pause that holds for nothing at most a minute of
 * traffic; one that holds for good costs one more 429 a minute.
 */
export const PROBE_MS = 60_000;

/** What one 429 (or several on the same dimensions) paused, as it stands. */
export interface Hold {
  /** The dimensions it pauses; `undefined`: every one (the 429 named no budget). */
  readonly names: readonly string[] | undefined;
  /** Monotonic: when its hint ends, at the latest. */
  until: number;
  /** Admissions counted when it was set: a response to a call admitted by then is not later news. */
  seq: number;
  /** It named a per-day quota: no probe ends it. */
  perDay: boolean;
  /** Whether it is probed (see {@link PROBE_MS}): longer than a stretch when set, and not a per-day quota. */
  probed: boolean;
  /** Monotonic: when the stretch in force ends (`until` when not probed). */
  stretchEnds: number;
}

/** The dimensions `a` and `b` pause are the same ones. */
function sameNames(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((name) => b.includes(name));
}

/**
 * The pauses 429s asked for: how long each holds, which ones a probe may end, and when the next probe may
 * go. Pure bookkeeping: admission puts each stretch in force where its buckets live.
 */
export class PauseHolds {
  private list: Hold[] = [];
  /** Whether a probed hold may stand: admission reads this on every admission, the rest only when it is set. */
  probing = false;

  /**
   * A 429 paused `names` (every dimension: `undefined`) for `ms`, with the admissions counted so far
   * `seq`; `perDay`: it named a per-day quota, which no probe ends. Returns the hold to put in force.
   */
  add(names: readonly string[] | undefined, ms: number, perDay: boolean, seq: number, now: number): Hold {
    this.prune(now);
    const until = now + ms;
    let hold = this.list.find((h) => sameNames(h.names, names));
    if (hold) {
      hold.perDay ||= perDay;
      hold.until = Math.max(hold.until, until);
      hold.seq = seq;
    } else {
      hold = { names, until, seq, perDay, probed: false, stretchEnds: 0 };
      this.list.push(hold);
    }
    hold.probed = !hold.perDay && hold.until - now > PROBE_MS;
    hold.stretchEnds = hold.probed ? Math.min(hold.until, now + PROBE_MS) : hold.until;
    this.probing = this.list.some((h) => h.probed);
    return hold;
  }

  /**
   * A call was admitted at `now`: the probed holds whose stretch was over start the next one, which the
   * caller puts in force (the call was their probe).
   */
  probed(now: number): Hold[] {
    this.prune(now);
    const due = this.list.filter((h) => h.probed && h.stretchEnds <= now);
    for (const hold of due) hold.stretchEnds = Math.min(hold.until, now + PROBE_MS);
    return due;
  }

  /**
   * A response to the call admitted `seq`th (`current`: headers taken as news of now) succeeded: the probed
   * holds set before that call, on dimensions where `hasRoom` says it shows room, end. Returns them.
   */
  lift(seq: number, current: boolean, hasRoom: (hold: Hold) => boolean, now: number): Hold[] {
    this.prune(now);
    if (!this.probing) return [];
    const lifted = this.list.filter((h) => h.probed && (current || seq > h.seq) && hasRoom(h));
    if (lifted.length > 0) this.remove(lifted);
    return lifted;
  }

  /** Ends every hold (`resume()`, `setLimits`). Returns them. */
  clear(): Hold[] {
    const all = this.list;
    this.list = [];
    this.probing = false;
    return all;
  }

  /** The holds standing at `now`. */
  standing(now: number): readonly Hold[] {
    this.prune(now);
    return this.list;
  }

  /** Drops the holds whose hint is over. */
  private prune(now: number): void {
    if (this.list.length === 0 || this.list.every((h) => h.until > now)) return;
    this.remove(this.list.filter((h) => h.until <= now));
  }

  private remove(holds: readonly Hold[]): void {
    this.list = this.list.filter((h) => !holds.includes(h));
    this.probing = this.list.some((h) => h.probed);
  }
}
