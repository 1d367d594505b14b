import type { Budget, Dimension } from "../core/budget.js";
import { isSubWindowAllowance } from "./fixed-windows.js";
import type { RateLimitView, ReportedUnit } from "../headers/types.js";
import type { Unit } from "../core/limits.js";
import { familyOf, UnknownWindows, type ResponseFacts } from "./unknown-windows.js";

/** A budget the provider reported. */
interface Reported {
  readonly unit: Unit;
  readonly limit: number;
  readonly windowMs: number;
  /**
   * No header told the window: the shortest the evidence allows (see {@link UnknownWindows}); the budget's name without
   * it.
   */
  readonly guessed: string | undefined;
}

/**
 * Limits learned from response headers, merged with the configured ones: the
 * effective limit is the lower of the two (so a tier upgrade can raise it back
 * to the configured ceiling), and a reported budget nobody configured is added.
 */
export class LearnedLimits {
  private readonly reported = new Map<string, Reported>();
  /** Azure's sub-window allowances by unit: a burst cap, not a rate. */
  private readonly bursts = new Map<Unit, number>();
  private concurrency: number | undefined;
  private heard = false;
  private readonly windows = new UnknownWindows();

  /**
   * Records what `view` reports, its guessed windows first rewritten in place to what
   * the evidence so far allows (so the levels it carries sync into the budgets
   * learned); returns whether the effective budget may have changed (the caller then
   * rebuilds it).
   */
  learn(view: RateLimitView, facts: ResponseFacts): boolean {
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
        changed ||= this.bursts.get(d.unit) !== d.limit;
        this.bursts.set(d.unit, d.limit);
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
      const before = this.reported.get(name);
      if (before?.limit === d.limit && before.windowMs === d.windowMs && before.guessed === guessed) continue;
      this.reported.set(name, { unit: d.unit, limit: d.limit, windowMs: d.windowMs, guessed });
      changed = true;
    }
    if (!this.heard && Object.keys(view.dimensions).length > 0) {
      this.heard = true;
      changed = true;
    }
    return changed;
  }

  /** Units some header gave a window: in this view, or learned before. */
  private toldUnits(view: RateLimitView): Set<ReportedUnit> {
    const told = new Set<ReportedUnit>();
    for (const d of Object.values(view.dimensions)) if (d.windowSource !== "assumed") told.add(d.unit);
    for (const r of this.reported.values()) if (r.guessed === undefined) told.add(r.unit);
    return told;
  }

  /**
   * The configured budget with the reported one folded in. A limiter with no
   * budget at all stays cautious (one call in flight) until headers arrive.
   * An Azure sub-window allowance caps the burst of the per-minute budgets of
   * its unit (their rate stands); with none configured it is taken as 10 s.
   */
  merge(configured: Budget): Budget {
    const byName = new Map<string, Dimension>(configured.dimensions.map((d) => [d.name, d]));
    for (const [name, r] of this.reported) {
      const own = byName.get(name);
      if (!own) {
        const learned: Dimension = { name, unit: r.unit, limit: r.limit, windowMs: r.windowMs, capacity: r.limit };
        byName.set(name, r.guessed === undefined ? learned : { ...learned, windowGuessed: true });
      } else if (r.limit < own.limit) {
        byName.set(name, { ...own, limit: r.limit, capacity: Math.min(own.capacity, r.limit) });
      }
    }
    for (const [unit, burst] of this.bursts) {
      const perMinute = [...byName.values()].filter((d) => d.unit === unit && d.windowMs <= 60_000);
      for (const d of perMinute) if (burst < d.capacity) byName.set(d.name, { ...d, capacity: burst });
      if (perMinute.length === 0) {
        const name = `${unit}/10s`;
        byName.set(name, { name, unit, limit: burst, windowMs: 10_000, capacity: burst });
      }
    }
    let concurrency = configured.concurrency;
    if (this.concurrency !== undefined) concurrency = Math.min(concurrency ?? Infinity, this.concurrency);
    if (concurrency === undefined && byName.size === 0 && !this.heard) concurrency = 1;
    return { dimensions: [...byName.values()], concurrency };
  }
}
