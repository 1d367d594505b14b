import { dimensionName } from "../headers/names.js";
import type { RateLimitView, ReportedDimension, ReportedUnit } from "../headers/types.js";
import { plausibleWindowOf, SLACK } from "../headers/window.js";
import type { SyncOrigin } from "../core/origin.js";
import type { Meter } from "../core/meter.js";
import type { FailureClass } from "../headers/failures.js";

/** What a response tells besides its headers. */
export interface ResponseFacts {
  /** Monotonic time it is applied: it was stamped no later. */
  readonly now: number;
  /** The request that carried it. */
  readonly origin: SyncOrigin;
  /**
   * This limiter's meters by name; `undefined` with a shared store, whose other clients' draws are not counted here.
   */
  readonly meters: ReadonlyMap<string, Meter> | undefined;
  /** Its 429, classified; `undefined` for any other response. */
  readonly failure: FailureClass | undefined;
}

/** One reading of a budget, kept to compare the next one with. */
interface Sighting {
  readonly remaining: number;
  /** Stamped no earlier than this (its request's admission)... */
  readonly earliest: number;
  /** ...and no later than this (its arrival). */
  readonly latest: number;
  /** The meter it was read into, and that meter's `admitted` less what it still held then. */
  readonly drawn: { readonly meter: string; readonly base: number } | undefined;
}

/** A budget whose window no header names. */
interface Family {
  readonly unit: ReportedUnit;
  readonly limit: number;
  /** The shortest window what was seen allows. */
  windowMs: number;
  last: Sighting | undefined;
}

/** The units a 429 names, as {@link FailureClass.dimension} names them. */
const UNITS_OF: Readonly<Record<"requests" | "tokens", readonly ReportedUnit[]>> = {
  requests: ["requests"],
  tokens: ["tokens", "input", "output"],
};

/**
 * A budget's name with its window left out (`rpm` -> `requests`, `project-tpm` -> `project-tokens`): the same budget
 * whatever window it is taken for.
 */
export function familyOf(name: string, d: ReportedDimension): string {
  return name.replace(dimensionName(d.unit, d.windowMs!), d.unit);
}

/** The family's dimension name at the window it is taken for now. */
function nameOf(key: string, family: Family): string {
  return key.replace(family.unit, dimensionName(family.unit, family.windowMs));
}

/**
 * The windows of budgets whose headers name none (no reset, or one too coarse to tell; see
 * `inferWindow`). Each is taken as the shortest window what was seen allows, a minute at
 * first, and lengthened by evidence, never past what it shows:
 * - a 429 on the budget whose retry hint is longer than the window: no bucket or window
 *   keeps a client waiting longer than its window, so it is at least the hint; and a
 *   requests bucket that kept one request waiting that long refills one request per hint
 *   at most, so its window is at least `hint × limit` (a daily budget taken for a minute
 *   costs one 429, whose hint then tells the day, and the next request waits for its
 *   refill, not a burst of them);
 * - two readings of a requests budget a whole window apart, not back to its limit although
 *   this limiter drew too little to explain it: the window is longer than the gap (request
 *   counts only: token counts differ between client and provider by reconciliation);
 * - a reading back at the limit sooner than the window allows undoes what evidence added (a
 *   fixed window that reset, a neighbour that stopped drawing).
 * Lengthening only ever slows the limiter; the configured limits bind either way.
 */
export class UnknownWindows {
  private readonly families = new Map<string, Family>();

  /**
   * Applies the evidence of `view` and rewrites its assumed dimensions to the windows the
   * evidence allows, renamed to match (`rpm` read on a daily budget becomes `rpd`). Guesses
   * of the units in `told`, which some header gives a window, are left as read. A budget a
   * 429 names but the response does not carry is added, empty.
   */
  read(view: RateLimitView, facts: ResponseFacts, told: ReadonlySet<ReportedUnit>): void {
    const seen = new Map<string, ReportedDimension>();
    const kept: Record<string, ReportedDimension> = {};
    for (const [name, d] of Object.entries(view.dimensions)) {
      if (d.windowSource === "assumed" && d.limit !== undefined && !told.has(d.unit)) seen.set(familyOf(name, d), d);
      else kept[name] = d;
    }
    for (const [key, d] of seen) this.observe(key, d, facts);
    const spent = facts.failure === undefined ? undefined : this.heed(facts.failure, seen, told);
    if (seen.size === 0 && spent === undefined) return;
    for (const [key, d] of seen) {
      const family = this.families.get(key)!;
      const name = nameOf(key, family);
      kept[name] = { ...d, windowMs: family.windowMs };
      family.last = sighting(name, d, facts);
    }
    if (spent !== undefined) {
      const family = this.families.get(spent)!;
      kept[nameOf(spent, family)] = {
        unit: family.unit,
        limit: family.limit,
        remaining: 0,
        windowMs: family.windowMs,
        windowSource: "assumed",
      };
    }
    view.dimensions = kept;
  }

  /** The reading's own bound, then what it and the last reading show together. */
  private observe(key: string, d: ReportedDimension, facts: ResponseFacts): void {
    const family = this.families.get(key);
    // A new budget, or a new limit (a tier change): what was seen of the old one no longer holds.
    if (family === undefined || family.limit !== d.limit) {
      this.families.set(key, { unit: d.unit, limit: d.limit!, windowMs: d.windowMs!, last: undefined });
      return;
    }
    family.windowMs = Math.max(family.windowMs, d.windowMs!);
    const last = family.last;
    if (last === undefined || d.remaining === undefined) return;
    const { limit, windowMs } = family;
    // Back at the limit: at least this much refilled (what this limiter drew meanwhile only adds to it).
    const refilled = limit - 2 - last.remaining;
    if (d.remaining >= limit - 1 && refilled > (SLACK * (facts.now - last.earliest) * limit) / windowMs) {
      family.windowMs = d.windowMs!;
      return;
    }
    const gap = (facts.origin.admittedAtMs ?? facts.now) - last.latest;
    if (d.unit !== "requests" || gap < SLACK * windowMs) return;
    const drawn = drawnSince(last, facts);
    if (drawn !== undefined && d.remaining + drawn < limit - 1) family.windowMs = plausibleWindowOf(gap / SLACK);
  }

  /**
   * A rate 429 with a retry hint longer than the window, on the one guessed budget of the
   * units it names (of several, the one the response shows empty): see the class notes. The
   * hint was rounded up and stamped before it arrived, hence the slack. Returns the budget
   * when the response does not carry it.
   */
  private heed(
    failure: FailureClass,
    seen: ReadonlyMap<string, ReportedDimension>,
    told: ReadonlySet<ReportedUnit>,
  ): string | undefined {
    if (failure.kind !== "rate" || failure.retryAfterMs === undefined || failure.dimension === undefined)
      return undefined;
    if (failure.dimension === "concurrency") return undefined; // a cap on calls in flight has no window
    const units = UNITS_OF[failure.dimension];
    let named = [...this.families.keys()].filter((key) => {
      const unit = this.families.get(key)!.unit;
      return units.includes(unit) && !told.has(unit);
    });
    if (named.length > 1) named = named.filter((key) => seen.get(key)?.remaining === 0);
    if (named.length !== 1) return undefined;
    const key = named[0]!;
    const family = this.families.get(key)!;
    const hint = failure.retryAfterMs / SLACK;
    if (hint <= family.windowMs) return undefined;
    // A token bucket's wait depends on the refused call's size, which is not known here.
    family.windowMs = plausibleWindowOf(family.unit === "requests" ? hint * family.limit : hint);
    return seen.has(key) ? undefined : key;
  }
}

/** The reading as a {@link Sighting}, with the draw count of the meter it is read into when that exists. */
function sighting(name: string, d: ReportedDimension, facts: ResponseFacts): Sighting | undefined {
  if (d.remaining === undefined) return undefined;
  const meter = facts.meters?.get(name);
  const mark = meter === undefined ? undefined : facts.origin.markOf(meter);
  const earliest = facts.origin.admittedAtMs ?? facts.now;
  const drawn = mark === undefined ? undefined : { meter: name, base: mark - meter!.held };
  return { remaining: d.remaining, earliest, latest: facts.now, drawn };
}

/**
 * What this limiter drew on the budget that the provider may have counted between `last`
 * and now: all admitted after `last`'s request, and all still in flight then. An upper
 * bound, so that a gap in refill is never overstated.
 */
function drawnSince(last: Sighting, facts: ResponseFacts): number | undefined {
  const meter = last.drawn === undefined ? undefined : facts.meters?.get(last.drawn.meter);
  return meter === undefined ? undefined : meter.admitted - last.drawn!.base;
}
