import type { LocalBuckets } from "../buckets/local-buckets.js";

/** Calls sent at start-up before anything is heard of the key: a drained key costs about this many 429s. */
const PROBE_CALLS = 4;

/**
 * The longest the burst is held back waiting for the probe's first answer. A
 * key partly drained answers the probe's calls with success, so only a
 * response's headers tell how much is left: a call's latency, seconds at most.
 */
const PROBE_MAX_MS = 5_000;

/**
 * A new process cannot tell a fresh key from one its predecessor just drained
 * (a restart in a rolling deploy). It sends a few calls; then, until the
 * first response (or finished call) says how the key stands, it admits only
 * what refills: the start-up burst waits for news, the rate does not (a full
 * bucket would lose that refill anyway), so a fresh key loses next to nothing
 * and a drained one costs a handful of 429s, whose headers then pause admission.
 */
export class StartupProbe {
  /** Admissions left before the burst is held back. */
  private left = PROBE_CALLS;
  /** When the hold gives up waiting for news (Infinity until it begins). */
  holdEnds = Infinity;

  constructor(private readonly store: LocalBuckets) {}

  /** An admission at `now`: the last of the probe's calls holds the burst back. */
  admitted(now: number): void {
    if (--this.left !== 0) return;
    this.store.holdFloors();
    this.holdEnds = now + PROBE_MAX_MS;
  }

  /** Whether no news came within the hold's time: the probe should end anyway. */
  expired(now: number): boolean {
    return now >= this.holdEnds;
  }

  /** News of the key (or none in time): the whole level is admissible again. */
  end(): void {
    if (this.left <= 0) this.store.releaseFloors();
  }
}
