import type { Budget, Dimension } from "../core/budget.js";
import { isSubWindowAllowance } from "./fixed-windows.js";
import { RESET_SLACK_MS } from "./reset-evidence.js";
import type { RateLimitView, ReportedDimension, ReportedUnit } from "../headers/types.js";
import type { Unit } from "../core/limits.js";
import { familyOf, UnknownWindows, type ResponseFacts } from "./unknown-windows.js";
import { AdaptiveConcurrency } from "./discovery.js";
import { BURST_SHARE, ServedRate } from "./served-rate.js";

/** What discovery reads of a response beside its outcome (see {@link LearnedLimits.discovered}). */
export interface DiscoveryFacts {
  /** The call's admission order. */
  readonly seq: number;
  /** Admissions counted so far. */
  readonly admissions: number;
  /** Calls in flight, this one included. */
  readonly inFlight: number;
  /** Monotonic now. */
  readonly now: number;
  /** A 429's retry hint, in ms. */
  readonly hintMs: number | undefined;
}

/** A limit some responses reported, and how far it is trusted. */
interface Tracked {
  readonly limit: number;
  /** Responses in a row that reported this very limit (up to {@link CONFIRMATIONS}). */
  readings: number;
  /** A call too large for it alone goes out as a probe: until the next reading, the limit is not applied. */
  probing: boolean;
}

/** A budget the provider reported. */
interface Reported extends Tracked {
  readonly unit: Unit;
  readonly windowMs: number;
  /**
   * No header told the window: the shortest the evidence allows (see {@link UnknownWindows}); the budget's name without
   * it.
   */
  readonly guessed: string | undefined;
  /** Monotonic time of its last reading: a provisional limit decays from there. */
  readonly readAt: number;
  /** The limit its reset implies (see {@link impliedLimit}): a provisional limit refills no slower. */
  readonly implied: number;
}

/**
 * Responses in a row that must report the same limit before it is confirmed. Until then it is
 * provisional: it never makes a call too large (the call goes out as a probe, or waits for the
 * decay below), since one response from a proxy or a misconfigured gateway must not stop a service.
 */
export const CONFIRMATIONS = 3;
/**
 * How many budgets nobody configured a limiter learns at most: a sender varying its windows or names
 * must not add a dimension per response (every admission walks them all). The least recently read goes.
 */
export const MAX_LEARNED = 16;

/** Whether `t` is confirmed: reported by {@link CONFIRMATIONS} responses in a row. */
function confirmed(t: Tracked): boolean {
  return t.readings >= CONFIRMATIONS;
}

/** Readings in a row of `limit`, one more than `before`'s when it reported the same (`same`). */
function readingsOf(before: Tracked | undefined, same: boolean): number {
  return same && before !== undefined ? Math.min(CONFIRMATIONS, before.readings + 1) : 1;
}

/** Starts a probe past provisional `t`; false when it is confirmed or probed already. */
function startProbe(t: Tracked | undefined): boolean {
  if (t === undefined || t.probing || confirmed(t)) return false;
  t.probing = true;
  return true;
}

/** A reset that refills faster than this many times the limit's own rate says the limit is not the bucket's. */
const IMPLIED_SLACK = 1.1;

/**
 * The limit per window that `d`'s own reset implies: a bucket's reset is the time to refill what
 * is missing at the limit's rate, so `(limit - remaining) × window / reset`, the reset taken as
 * late as its rounding allows. `limit` when the reset says nothing, or agrees within
 * {@link IMPLIED_SLACK}; more when it refills faster (a limit of 1 with a reset of a second
 * refills at 20 a minute at least): obeying the headers is never slower.
 */
function impliedLimit(d: ReportedDimension, limit: number, windowMs: number): number {
  const { remaining, resetMs } = d;
  if (remaining === undefined || resetMs === undefined || resetMs <= 0 || remaining >= limit) return limit;
  // The reset read late by as much as its rounding allows: the slower refill, the safe side.
  const implied = Math.floor(((limit - remaining) * windowMs) / (resetMs + RESET_SLACK_MS));
  return implied > IMPLIED_SLACK * limit ? implied : limit;
}

/**
 * What a provisional `learned` value below a configured one allows `elapsed` ms after its last
 * reading: it decays back toward the configured one, halfway per window (rounded down), so that a
 * reading no later response repeats stops binding within a few windows.
 */
function decayed(learned: number, configured: number, elapsed: number, windowMs: number): number {
  // Whole, rounded down (the safe side), like every limit a header gives.
  return Math.floor(configured - (configured - learned) * 2 ** (-Math.max(0, elapsed) / windowMs));
}

/**
 * Limits learned from response headers, merged with the configured ones: the
 * effective limit is the lower of the two (so a tier upgrade can raise it back
 * to the configured ceiling), and a reported budget nobody configured is added.
 * A learned limit is provisional until {@link CONFIRMATIONS} responses in a row
 * report it: below a configured one it decays back toward it (and refills no slower
 * than its own reset implies), and a call too large for it goes out as a probe (see
 * {@link LearnedLimits.probe}). Only a configured or confirmed limit makes a call
 * too large.
 */
export class LearnedLimits {
  private readonly reported = new Map<string, Reported>();
  /** Azure's sub-window allowances by unit: a burst cap, not a rate. */
  private readonly bursts = new Map<Unit, Tracked>();
  /** The dimensions the last merge capped by a burst, with its unit: a probe past them lifts that burst. */
  private readonly cappedBy = new Map<string, Unit>();
  /** The configured dimensions the last merge folded into. */
  private configured: readonly Dimension[] = [];
  /** Whether the last merge had a configured concurrency. */
  private concurrencyConfigured = false;
  private concurrency: number | undefined;
  private heard = false;
  /** The calls in flight allowed while nothing is configured and no response reported a level. */
  private readonly adaptive = new AdaptiveConcurrency();
  /** The request rate served between 429 episodes, in force with {@link adaptive}. */
  private readonly rate = new ServedRate();
  private readonly windows = new UnknownWindows();

  /** `measuresRate`: whether {@link rate} is measured (this process alone draws on its levels). */
  constructor(private readonly measuresRate = true) {}

  /**
   * Records what `view` reports, its guessed windows first rewritten in place to what
   * the evidence so far allows (so the levels it carries sync into the budgets
   * learned); returns whether the effective budget may have changed (the caller then
   * rebuilds it).
   */
  learn(view: RateLimitView, facts: ResponseFacts, confirmsTokens = false): boolean {
    const guesses = Object.values(view.dimensions).some((d) => d.windowSource === "assumed");
    if (guesses || facts.failure !== undefined) this.windows.read(view, facts, this.toldUnits(view));
    let changed = false;
    for (const [name, d] of Object.entries(view.dimensions)) {
      if (d.limit === undefined || d.limit <= 0) continue;
      if (d.unit === "concurrency") {
        changed ||= this.concurrency !== d.limit;
        this.concurrency = d.limit;
        continue;
      }
      if (d.windowMs === undefined || d.windowMs <= 0) continue;
      if (isSubWindowAllowance(view.provider, d)) {
        const before = this.bursts.get(d.unit);
        const same = before?.limit === d.limit;
        changed ||= !same || before.probing || !confirmed(before);
        this.bursts.set(d.unit, { limit: d.limit, readings: readingsOf(before, same), probing: false });
        continue;
      }
      const guessed = d.windowSource === "assumed" ? familyOf(name, d) : undefined;
      const sameUnit = [...this.reported].filter(([, r]) => r.unit === d.unit);
      // A told window replaces the guessed ones; a guess never replaces a told one, and
      // replaces its own earlier guess (the same budget, taken for another window now).
      if (guessed !== undefined && sameUnit.some(([other, r]) => other !== name && r.guessed === undefined)) continue;
      for (const [other, r] of sameUnit) {
        if (other !== name && r.guessed !== undefined && (guessed === undefined || r.guessed === guessed)) {
          this.reported.delete(other);
          changed = true;
        }
      }
      const reading = { unit: d.unit, limit: d.limit, windowMs: d.windowMs, guessed, readAt: facts.now };
      const confirms = confirmsTokens && d.unit !== "requests";
      changed = this.read(name, { ...reading, implied: impliedLimit(d, d.limit, d.windowMs) }, confirms) || changed;
    }
    if (!this.heard && Object.keys(view.dimensions).length > 0) {
      this.heard = true;
      changed = true;
    }
    return changed;
  }

  /**
   * One response's reading of budget `name`: the same budget again counts toward its confirmation (and ends
   * a probe), another starts afresh. Kept last in order, so that the least recently read is the first
   * beyond {@link MAX_LEARNED}. Returns whether the merged budget may change: a new or ended probe, a
   * new limit, or a provisional one (confirmed now, or decaying from now).
   */
  private read(name: string, reading: Omit<Reported, "readings" | "probing">, confirms: boolean): boolean {
    const { limit, windowMs, guessed } = reading;
    const before = this.reported.get(name);
    this.reported.delete(name);
    const same = before?.limit === limit && before.windowMs === windowMs && before.guessed === guessed;
    const readings = confirms ? CONFIRMATIONS : readingsOf(before, same);
    this.reported.set(name, { ...reading, readings, probing: false });
    if (this.reported.size > MAX_LEARNED) this.reported.delete(this.reported.keys().next().value!);
    if (!same || before.probing) return true;
    // The count matters to a limit nobody configured (the rate its reset implies, until confirmed) and to one
    // below the configured limit (it decays from now, or is confirmed now).
    const own = this.configured.find((d) => d.name === name);
    return (own === undefined || limit < own.limit) && before.readings < CONFIRMATIONS;
  }

  /**
   * A call costs more than the provisional limit of `name` can hold: it goes out as a probe,
   * with that limit left out of the merged budget until the next response reports it (which
   * either repeats it, toward confirmation, or tells another). Returns whether it did (the caller
   * rebuilds the budget); false for a configured or confirmed limit, which makes the call too large.
   */
  probe(name: string): boolean {
    if (startProbe(this.reported.get(name))) return true;
    const unit = this.cappedBy.get(name);
    return unit !== undefined && startProbe(this.bursts.get(unit));
  }

  /**
   * A response to the call admitted `seq`th (`admissions` counted so far): `served`, or a rate-limit 429
   * (`limited`), or neither. It moves the adaptive concurrency limit while that is in force (nothing configured,
   * no level reported, nothing learned); returns whether it changed (the caller rebuilds the budget).
   */
  discovered(
    outcome: "served" | "limited" | undefined,
    { seq, admissions, inFlight, now, hintMs }: DiscoveryFacts,
  ): boolean {
    if (outcome === undefined || !this.discovering()) return false;
    if (outcome === "served") {
      const faster = this.rate.served(seq);
      return this.adaptive.served(seq, inFlight) || faster;
    }
    // The concurrency's cut says whether this 429 begins an episode (one burst of 429s is one piece of news).
    const cutAtSeq = this.adaptive.cutAtSeq;
    const cut = this.adaptive.limited(seq, admissions);
    const episode = this.adaptive.cutAtSeq !== cutAtSeq;
    return (episode && this.measuresRate && this.rate.episode(admissions, now, hintMs)) || cut;
  }

  /** Whether the adaptive concurrency limit is in force. */
  private discovering(): boolean {
    const none = this.configured.length === 0 && !this.concurrencyConfigured;
    return none && !this.heard && this.reported.size === 0 && this.bursts.size === 0;
  }

  /** Units some header gave a window: in this view, or learned before. */
  private toldUnits(view: RateLimitView): Set<ReportedUnit> {
    const told = new Set<ReportedUnit>();
    for (const d of Object.values(view.dimensions)) if (d.windowSource !== "assumed") told.add(d.unit);
    for (const r of this.reported.values()) if (r.guessed === undefined) told.add(r.unit);
    return told;
  }

  /**
   * The configured budget with the reported one folded in, at monotonic `now`. A limiter with no
   * budget at all holds the adaptive concurrency limit (see {@link AdaptiveConcurrency}) until headers arrive.
   * An Azure sub-window allowance caps the burst of the per-minute budgets of
   * its unit (their rate stands); with none configured it is taken as 10 s.
   */
  merge(configured: Budget, now: number): Budget {
    this.configured = configured.dimensions;
    this.concurrencyConfigured = configured.concurrency !== undefined;
    const byName = new Map<string, Dimension>(configured.dimensions.map((d) => [d.name, d]));
    for (const [name, r] of this.reported) {
      if (r.probing) continue;
      const own = byName.get(name);
      if (!own) {
        const limit = confirmed(r) ? r.limit : r.implied;
        const learned: Dimension = { name, unit: r.unit, limit, windowMs: r.windowMs, capacity: r.limit };
        byName.set(name, r.guessed === undefined ? learned : { ...learned, windowGuessed: true });
      } else if (r.limit < own.limit && confirmed(r)) {
        byName.set(name, { ...own, limit: r.limit, capacity: Math.min(own.capacity, r.limit) });
      } else if (r.limit < own.limit) {
        // Provisional: both decay back, and the rate is never below what the reading's own reset implies.
        const elapsed = now - r.readAt;
        const limit = decayed(Math.min(own.limit, r.implied), own.limit, elapsed, r.windowMs);
        const capacity = Math.min(own.capacity, decayed(r.limit, own.limit, elapsed, r.windowMs));
        byName.set(name, { ...own, limit, capacity });
      }
    }
    this.cappedBy.clear();
    for (const [unit, { limit: burst, probing }] of this.bursts) {
      if (probing) continue;
      const perMinute = [...byName.values()].filter((d) => d.unit === unit && d.windowMs <= 60_000);
      for (const d of perMinute) {
        if (burst >= d.capacity) continue;
        byName.set(d.name, { ...d, capacity: burst });
        this.cappedBy.set(d.name, unit);
      }
      if (perMinute.length === 0) {
        const name = `${unit}/10s`;
        byName.set(name, { name, unit, limit: burst, windowMs: 10_000, capacity: burst });
        this.cappedBy.set(name, unit);
      }
    }
    let concurrency = configured.concurrency;
    if (this.concurrency !== undefined) concurrency = Math.min(concurrency ?? Infinity, this.concurrency);
    if (concurrency === undefined && byName.size === 0 && !this.heard) {
      concurrency = this.adaptive.limit;
      const limit = this.rate.perMinute;
      if (limit !== undefined) {
        const capacity = Math.max(1, Math.floor(limit * BURST_SHARE));
        byName.set("rpm", { name: "rpm", unit: "requests", limit, windowMs: 60_000, capacity, discovered: true });
      }
    }
    return { dimensions: [...byName.values()], concurrency };
  }
}
