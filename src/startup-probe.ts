/** Calls sent at start-up before anything is heard of the key: a drained key costs this many 429s. */
const PROBE_CALLS = 4;

/**
 * The longest the rest of a start-up burst waits for the probe's first answer.
 * A key partly drained answers the probe's calls with success, so only a
 * response's headers tell how much is left: a call's latency, a few seconds at most.
 */
const PROBE_MAX_MS = 5_000;

/**
 * A new process cannot tell a fresh key from one its predecessor just drained
 * (a restart in a rolling deploy): only a few calls go before the first
 * response (or a finished call) says how the key stands; the rest of a
 * start-up burst waits for it, a while at most.
 */
export class StartupProbe {
  /** Admissions left before the hold. */
  private left = PROBE_CALLS;
  /** When the hold ends, once the allowance is spent (0 before): for the caller to lift when news of the key comes. */
  hold = 0;

  /** An admission at `now`: the time admission must pause until once the allowance is spent, else 0. */
  admitted(now: number): number {
    if (--this.left !== 0) return 0;
    this.hold = now + PROBE_MAX_MS;
    return this.hold;
  }
}
