import type { Meter } from "../core/meter.js";
import type { SyncOrigin } from "../core/origin.js";
import type { FailureClass } from "../headers/failures.js";
import type { RateLimitView } from "../headers/types.js";
import { readWindow, windowFromRetryHint } from "./fixed-windows.js";
import {
  broughtForward,
  holdBack,
  namedBy,
  type HoldTarget,
  type LevelHeard,
  type LevelSync,
  type PauseOrder,
} from "./level-sync.js";
import { createSyncState, type SyncState } from "./state.js";

/** The buckets in this process, as header sync moves them (`LocalBuckets`). */
export interface LocalLevelTarget extends HoldTarget {
  /** Current level of dimension `name` (refilled to now), if it exists. */
  level(name: string): number | undefined;
  /** Everything refunded to dimension `name` so far. */
  refunded(name: string): number;
  /** What dimension `name` drew that may not have reached the provider yet. */
  onTheirWay(name: string): number;
  /** Sets dimension `name` to `level` as a fresher response reports it, never above this limiter's own count. */
  resync(name: string, level: number): void;
  /** The fraction of its rate dimension `name` refills at. */
  share(name: string): number;
  /** Refills dimension `name` at `share` (0..1] of its rate: other clients draw on the same key. */
  setShare(name: string, share: number): void;
  /** The provider meters `name` in fixed windows of `periodMs`, the current one begun at or before `startedBy`. */
  alignWindow(name: string, startedBy: number, periodMs: number): void;
  /** `name` is a continuous bucket after all. */
  endWindows(name: string): void;
}

/**
 * The provider's remaining brought forward from the request's admission to now:
 * refilled at the full rate, less what this limiter drew since (admissions less
 * refunds). Headers may be stamped when the request is admitted (then this is
 * exact) or when the response is sent (then `remaining` already counts both,
 * and this can be too high when other clients drew on the key meanwhile); the
 * lower of the two readings is the safe one. At saturation they agree, since
 * admissions then match the refill, so a provider that stamps late costs nothing.
 * Neither reading counts the draws still on their way (`onTheirWay`): a
 * `remaining` stamped at completion is current but has not seen them, and the
 * brought-forward one credits refunds that `remaining` already holds.
 */
function remainingNow(
  meter: Meter,
  remaining: number,
  unseen: number,
  onTheirWay: number,
  origin: SyncOrigin,
  now: number,
): number {
  const current = remaining - onTheirWay;
  return Math.max(0, Math.min(current, broughtForward(meter, remaining, origin, now) - unseen));
}

/** How quickly the claim cut by 429s grows back (slowly: each regrowth past the key's room costs a 429). */
const CLAIM_RECOVERY_MS = 120_000;
/** How quickly the estimate of others' use of a shared key follows new evidence. */
const SHARE_TIME_CONSTANT_MS = 5_000;
/** Others' draw below this fraction of the rate is taken as noise. */
const NOISE_SHARE = 0.1;
/** Never believe others leave us less than this fraction of the rate: the level sync still caps us. */
const MIN_SHARE = 0.05;
/** One response's reading can at most halve the share: a burst of noisy readings must not stall a lone client. */
const MAX_CUT = 0.5;

/**
 * Header sync of the buckets in this process. It sets levels to what the
 * provider reports, brought forward to now and less what this limiter admitted
 * after the request that carried the headers (the provider may not have
 * counted those yet), never above the limiter's own count. A response older
 * than one already applied changes nothing. From consecutive responses it
 * learns how fast other clients drain a shared key, and refills locally at
 * this client's share; and whether the provider meters in fixed windows.
 */
export class LocalLevels implements LevelSync {
  /** By meter: a dimension that changed what it counts is a new one, learned afresh. */
  private readonly states = new WeakMap<Meter, SyncState>();

  constructor(private readonly target: LocalLevelTarget) {}

  current(seq: number): SyncOrigin {
    // Current when received: nothing admitted so far is unseen.
    return { seq, admittedAtMs: undefined, markOf: (meter) => meter.admitted };
  }

  ownDraws(meters: ReadonlyMap<string, Meter>): ReadonlyMap<string, Meter> {
    return meters;
  }

  apply(view: RateLimitView, meters: readonly Meter[], origin: SyncOrigin, now: number, heard?: LevelHeard): void {
    for (const meter of meters) this.applyOne(view, meter, this.stateOf(meter), origin, now, heard);
  }

  rateLimited(
    failure: FailureClass,
    meters: readonly Meter[],
    seq: number,
    admissions: number,
    now: number,
  ): PauseOrder | undefined {
    const named = namedBy(failure, meters);
    for (const meter of named.length > 0 ? named : meters)
      if (!meter.dimension.discovered) this.yieldShare(meter, seq, admissions);
    const pause = holdBack(failure, named, meters, this.target);
    if (failure.retryAfterMs !== undefined) this.alignToRetryHint(named, failure.retryAfterMs, now);
    return pause;
  }

  private stateOf(meter: Meter): SyncState {
    let state = this.states.get(meter);
    if (!state) this.states.set(meter, (state = createSyncState()));
    return state;
  }

  private applyOne(
    view: RateLimitView,
    meter: Meter,
    state: SyncState,
    origin: SyncOrigin,
    now: number,
    heard: LevelHeard | undefined,
  ): void {
    const { target } = this;
    const reported = view.dimensions[meter.name];
    if (reported?.remaining === undefined || origin.seq < state.syncedSeq) return;
    const unseen = meter.admitted - (origin.markOf(meter) ?? 0);
    const local = target.level(meter.name);
    if (local === undefined) return;
    // In a fixed window nothing refills before the boundary: what is left is the remaining less what was drawn since.
    const truthOf = (): number =>
      state.windowed
        ? Math.max(0, Math.min(reported.remaining!, reported.remaining! - unseen))
        : remainingNow(meter, reported.remaining!, unseen, target.onTheirWay(meter.name), origin, now);
    const last = state.lastSyncAt;
    state.lastSyncAt = now;
    // Readings of another limit (a tier change, a hostile response) are not comparable: no evidence from the pair.
    const comparable = last !== undefined && now > last && state.lastLimit === meter.dimension.limit;
    state.lastLimit = meter.dimension.limit;
    const moved = comparable
      ? { providerGain: truthOf() - state.lastTruth, localGain: local - state.lastSet, dt: now - last }
      : undefined;
    const window = readWindow(state, meter.dimension, reported, view.provider, moved, now);
    recoverClaim(state, moved?.dt);
    const truth = truthOf();
    heard?.(meter, local, truth);
    if (window === "revoked") target.endWindows(meter.name);
    else if (window) target.alignWindow(meter.name, window.startedBy, window.periodMs);
    // The share compares what the provider counted by the time it answered (its remaining, less the draws not there
    // yet): the brought-forward reading takes off every draw admitted since the request, which a burst answered at
    // once had all counted, and would read as a neighbour. From a reading below 0 the level shown understates how
    // far the provider's rose since: no evidence of others.
    // Nor are this limiter's refunds since the last sync evidence: the provider never counted what they give back
    // (a call reserves its max_tokens and uses less), so they are left out of the local level's move.
    const seen = reported.remaining - target.onTheirWay(meter.name);
    const refunded = target.refunded(meter.name);
    if (!window && moved && !state.windowed && state.lastSeen >= 0) {
      const localGain = moved.localGain - (refunded - state.lastRefunded);
      this.learnShare(meter, state, { ...moved, localGain, providerGain: seen - state.lastSeen });
    }
    state.lastSeen = seen;
    state.lastRefunded = refunded;
    state.syncedSeq = origin.seq;
    // Every client on a shared key sees the same remaining: claim the part of it this client's
    // share of the rate says is its own, and after 429s less. Where the window is a guess, a
    // remaining that refills slower than it allows may be a longer window, not a neighbour.
    const share = meter.dimension.windowGuessed ? 1 : target.share(meter.name);
    const set = truth * Math.min(state.claim, share);
    target.resync(meter.name, set);
    state.lastTruth = truth;
    state.lastSet = target.level(meter.name) ?? set;
  }

  /**
   * Since the last sync the local level moved by `localGain` and the
   * provider's by `providerGain`; the local one ran ahead by what others
   * drew, less the part of the rate it did not refill (it refills at its share).
   * Noise in either direction averages out, so samples stay signed; a
   * time-weighted average of their rate sets the local refill share.
   */
  private learnShare(meter: Meter, state: SyncState, { providerGain, localGain, dt }: LevelMoves): void {
    const { limit, windowMs, capacity } = meter.dimension;
    const rate = limit / windowMs;
    // A provider bucket at capacity says nobody is short of it: let the share recover.
    const full = state.lastSeen + providerGain >= capacity * 0.99;
    const share = this.target.share(meter.name);
    const sample = full ? 0 : (localGain - providerGain) / dt + (1 - share) * rate;
    const weight = 1 - Math.exp(-dt / SHARE_TIME_CONSTANT_MS);
    state.othersRate += weight * (sample - state.othersRate);
    // A dead zone: a lone client's noise must not cost it throughput; a real neighbour shows well above it.
    const others = state.othersRate < NOISE_SHARE * rate ? 0 : state.othersRate;
    this.target.setShare(meter.name, Math.min(1, Math.max(MIN_SHARE, share * MAX_CUT, 1 - others / rate)));
  }

  /**
   * A 429 is direct evidence that this client draws more than its share of the
   * key: give up a quarter of its refill share and half of the remaining it
   * claims. Later responses showing slack, and time, give them back. One answer
   * per round: the requests admitted before the last cut (`seq` at or below
   * `cutAtSeq`) were sent on what it knew then, so their 429s are that same
   * evidence again (a burst told a limit ten times too high draws ten at once).
   */
  private yieldShare(meter: Meter, seq: number, admissions: number): void {
    const state = this.stateOf(meter);
    if (seq <= state.cutAtSeq) return;
    state.cutAtSeq = admissions;
    const rate = meter.dimension.limit / meter.dimension.windowMs;
    const share = Math.max(MIN_SHARE, this.target.share(meter.name) * 0.75);
    state.claim = Math.max(MIN_SHARE, state.claim * 0.5);
    state.othersRate = Math.max(state.othersRate, (1 - share) * rate);
    this.target.setShare(meter.name, share);
  }

  /**
   * A 429 named the dimensions `named` (by unit). When that is one windowed
   * dimension, its window is spent and ends when the retry hint says (sharper
   * than the response that shows the next window's jump, which arrives a
   * latency after it began). With several, the hint may be another's.
   */
  private alignToRetryHint(named: readonly Meter[], retryAfterMs: number, now: number): void {
    const meter = named[0];
    if (meter === undefined || named.length > 1) return;
    const window = windowFromRetryHint(this.stateOf(meter), meter.dimension, retryAfterMs, now);
    if (!window) return;
    this.target.alignWindow(meter.name, window.startedBy, window.periodMs);
    this.target.lower(meter.name, 0);
  }
}

/** How the provider's level and the local one moved between two syncs `dt` ms apart. */
interface LevelMoves {
  readonly providerGain: number;
  readonly localGain: number;
  readonly dt: number;
}

/** The claim grows back toward the whole remaining while no 429 cuts it, over `dt` since the last sync. */
function recoverClaim(state: SyncState, dt: number | undefined): void {
  if (dt === undefined) return;
  state.claim += (1 - state.claim) * (1 - Math.exp(-dt / CLAIM_RECOVERY_MS));
}
