import type { SimulationRun, SimulationSample } from "../types.js";

/** A span in which calls waited and nothing was sent while the key had room for several of them. */
export interface Stall {
  /** Simulated ms of the first sample of the span. */
  readonly fromMs: number;
  /** Simulated ms of its last sample: nothing was sent in between. */
  readonly toMs: number;
  /** Most calls waiting during the span. */
  readonly waiting: number;
  /** Least room the key had during the span, in calls as demanding as the most demanding one waiting. */
  readonly room: number;
}

/**
 * Room, in calls, a key must have for the wait to be a stall: a limiter a call or two behind its
 * key (its view floored to whole units, an answer's refund not yet settled) is only pacing.
 */
export const STALL_ROOM = 3;
/** The shortest span reported: shorter ones are a wait between two admissions, not a stall. */
export const STALL_MIN_MS = 1_000;

const stalled = (s: SimulationSample): boolean => s.waiting > 0 && s.waitingRoom >= STALL_ROOM;

/**
 * The stalls of a run: spans of at least {@link STALL_MIN_MS} (and one sample interval) in which,
 * at every sample, calls waited and the key had room for {@link STALL_ROOM} of them or more, while
 * nothing was sent.
 */
export function stallsOf(run: SimulationRun): Stall[] {
  const stalls: Stall[] = [];
  const { samples } = run;
  for (let from = 0; from < samples.length; from++) {
    const first = samples[from]!;
    if (!stalled(first)) continue;
    let to = from;
    while (to + 1 < samples.length && stalled(samples[to + 1]!) && samples[to + 1]!.sent === first.sent) to++;
    const span = samples.slice(from, to + 1);
    if (to > from && samples[to]!.t - first.t >= STALL_MIN_MS) {
      stalls.push({
        fromMs: first.t,
        toMs: samples[to]!.t,
        waiting: Math.max(...span.map((s) => s.waiting)),
        room: Math.min(...span.map((s) => s.waitingRoom)),
      });
    }
    from = to;
  }
  return stalls;
}
