import { UnseenDraws } from "../buckets/unseen-draws.js";
import type { Clock } from "../core/clock.js";

/**
 * What this process admitted through the shared store that may not have
 * reached the provider yet (within `arrivalDelayMs`), by dimension. A
 * `remaining` stamped when a response is sent has not counted those draws;
 * header sync takes them off it before the store sees the reading. Other
 * processes' draws on their way are not known here.
 */
export class DrawsOnTheirWay {
  private readonly byName = new Map<string, UnseenDraws>();

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
  ) {}

  /** Keeps the draws of dimensions still named, forgets the others. */
  configure(names: readonly string[]): void {
    for (const name of [...this.byName.keys()]) if (!names.includes(name)) this.byName.delete(name);
    if (this.delayMs <= 0) return;
    for (const name of names) if (!this.byName.has(name)) this.byName.set(name, new UnseenDraws(this.delayMs));
  }

  /** A call admitted at `now` drew `cost` on `name` (`now` is its admission time, which refunds name). */
  sent(name: string, cost: number, now: number): void {
    if (cost > 0) this.byName.get(name)?.add(cost, now);
  }

  /** `amount` of a draw on `name` made at `drawnAt` has reached the provider (its response, or its refund). */
  arrived(name: string, amount: number, drawnAt: number): void {
    const draws = this.current(name);
    if (draws && amount > 0) draws.arrivedEarly(amount, drawnAt);
  }

  /** What is still on its way on `name` now. */
  total(name: string): number {
    return this.current(name)?.total ?? 0;
  }

  /** The draws of `name`, those whose time has come taken as arrived. */
  private current(name: string): UnseenDraws | undefined {
    const draws = this.byName.get(name);
    draws?.arriveBy(this.clock.now());
    return draws;
  }
}
