import { levelAt } from "../core/bucket.js";
import type { RateLimitView } from "../headers/types.js";
import { readWindow, windowFromRetryHint } from "./fixed-windows.js";
import type { Meter } from "../core/reservation.js";

/** What a header-carrying response is tied to: the admission that sent it. */
export interface SyncOrigin {
  /** Admissions counted before and including the request (freshness order). */
  readonly seq: number;
  /** Monotonic time the request was admitted; `undefined`: the headers are taken as current. */
  readonly admittedAtMs: number | undefined;
  /** The meter's `admitted` total right after the request was admitted; `undefined` if it predates the meter. */
  markOf(meter: Meter): number | undefined;
}

/**
 * The provider's remaining brought forward from the request's admission to now:
 * refilled at the full rate, less what this limiter drew since (admissions less
 * refunds). Headers may
 * be stamped when the request is admitted (then this is exact) or when the
 * response is sent (then `remaining` already counts both, and this can be too
 * high when other clients drew on the key meanwhile); the lower of the two
 * readings is the safe one. At saturation they agree, since admissions then
 * match the refill, so a provider that stamps late costs nothing.
 */
function remainingNow(meter: Meter, remaining: number, unseen: number, origin: SyncOrigin, now: number): number {
  return Math.max(0, Math.min(remaining, broughtForward(meter, remaining, origin, now) - unseen));
}

/** `remaining` as read at the request's admission, refilled at the full rate to now. */
function broughtForward(meter: Meter, remaining: number, origin: SyncOrigin, now: number): number {
  return levelAt(meter.dimension, { level: remaining, at: origin.admittedAtMs ?? now }, now);
}

/** The parts of a store that header sync moves. */
export interface SyncTarget {
  level(name: string): number | undefined;
  lower(name: string, level: number): void;
  resync(name: string, level: number): void;
  setShare(name: string, share: number): void;
  /** The provider meters `name` in fixed windows of `periodMs`, the current one begun at or before `startedBy`. */
  alignWindow(name: string, startedBy: number, periodMs: number): void;
  /** `name` is a continuous bucket after all. */
  endWindows(name: string): void;
}

/** Where header sync lowers levels held by a shared store. */
export interface SharedSyncTarget {
  /** Lowers to `remaining` less what every process booked after `mark`. */
  lowerFrom(meter: Meter, remaining: number, mark: number | undefined): void;
}

/** How quickly the headroom taken after 429s grows back (slowly: each regrowth past the key's room costs a 429). */
const HEADROOM_RECOVERY_MS = 120_000;
/** How quickly the estimate of others' use of a shared key follows new evidence. */
const SHARE_TIME_CONSTANT_MS = 5_000;
/** Others' draw below this fraction of the rate is taken as noise. */
const NOISE_SHARE = 0.1;
/** Never believe others leave us less than this fraction of the rate: the level sync still caps us. */
const MIN_SHARE = 0.05;

/**
 * Sets local levels to what the provider reports, brought forward to now and
 * less what this limiter admitted after the request that carried the headers
 * (the provider may not have counted those yet), never above the limiter's
 * own count. A response older than one already
 * applied changes nothing. From consecutive responses it learns how fast other
 * clients drain a shared key, and refills locally at this client's share.
 */
export function syncLevels(
  view: RateLimitView,
  meters: readonly Meter[],
  target: SyncTarget,
  origin: SyncOrigin,
  now: number,
): void {
  for (const meter of meters) {
    const reported = view.dimensions[meter.name];
    if (reported?.remaining === undefined || origin.seq < meter.syncedSeq) continue;
    const unseen = meter.admitted - (origin.markOf(meter) ?? 0);
    const local = target.level(meter.name);
    if (local === undefined) continue;
    // In a fixed window nothing refills before the boundary: what is left is the remaining less what was drawn since.
    const truthOf = (): number =>
      meter.windowed
        ? Math.max(0, Math.min(reported.remaining!, reported.remaining! - unseen))
        : remainingNow(meter, reported.remaining!, unseen, origin, now);
    const last = meter.lastSyncAt;
    meter.lastSyncAt = now;
    const moved =
      last === undefined || now <= last
        ? undefined
        : { providerGain: truthOf() - meter.lastTruth, localGain: local - meter.lastSet, dt: now - last };
    const window = readWindow(meter, reported, view.provider, moved, now);
    recoverHeadroom(meter, moved?.dt);
    const truth = truthOf();
    if (window === "revoked") target.endWindows(meter.name);
    else if (window) target.alignWindow(meter.name, window.startedBy, window.periodMs);
    else if (moved && !meter.windowed) learnShare(meter, target, moved);
    meter.syncedSeq = origin.seq;
    // Every client on a shared key sees the same headroom: take the part of it this client's
    // share of the rate says is its own, and after 429s less. Where the window is a guess, a
    // remaining that refills slower than it allows may be a longer window, not a neighbour.
    const share = meter.dimension.windowGuessed ? 1 : meter.share;
    const set = truth * Math.min(meter.headroom, share);
    target.resync(meter.name, set);
    meter.lastTruth = truth;
    meter.lastSet = target.level(meter.name) ?? set;
  }
}

/** The headroom taken grows back toward all of it while no 429 cuts it, over `dt` since the last sync. */
function recoverHeadroom(meter: Meter, dt: number | undefined): void {
  if (dt === undefined) return;
  meter.headroom += (1 - meter.headroom) * (1 - Math.exp(-dt / HEADROOM_RECOVERY_MS));
}

/**
 * Since the last sync the local level moved by `localGain` and the
 * provider's by `providerGain`; the local one ran ahead by what others
 * drew, less the part of the rate it did not refill (it refills at `share`).
 * Noise in either direction averages out, so samples stay signed; a
 * time-weighted average of their rate sets the local refill share.
 */
function learnShare(
  meter: Meter,
  target: SyncTarget,
  { providerGain, localGain, dt }: { providerGain: number; localGain: number; dt: number },
): void {
  const { limit, windowMs, capacity } = meter.dimension;
  const rate = limit / windowMs;
  // A provider bucket at capacity says nobody is short of it: let the share recover.
  const full = meter.lastTruth + providerGain >= capacity * 0.99;
  const sample = full ? 0 : (localGain - providerGain) / dt + (1 - meter.share) * rate;
  const weight = 1 - Math.exp(-dt / SHARE_TIME_CONSTANT_MS);
  meter.othersRate += weight * (sample - meter.othersRate);
  // A dead zone: a lone client's noise must not cost it throughput; a real neighbour shows well above it.
  const others = meter.othersRate < NOISE_SHARE * rate ? 0 : meter.othersRate;
  meter.share = Math.min(1, Math.max(MIN_SHARE, 1 - others / rate));
  target.setShare(meter.name, meter.share);
}

/**
 * {@link syncLevels} for a shared store: the store discounts what every
 * replica booked after the request's mark, atomically. Every replica draws on
 * the same bucket, so there is no share to learn.
 */
export function syncSharedLevels(
  view: RateLimitView,
  meters: readonly Meter[],
  target: SharedSyncTarget,
  origin: SyncOrigin,
  now: number,
): void {
  for (const meter of meters) {
    const remaining = view.dimensions[meter.name]?.remaining;
    if (remaining === undefined || origin.seq < meter.syncedSeq) continue;
    meter.syncedSeq = origin.seq;
    // The store discounts what every replica booked since; with the plain remaining too, the lower
    // reading wins. Nothing refilled since admission (or headers taken as current): the first alone does.
    const brought = broughtForward(meter, remaining, origin, now);
    target.lowerFrom(meter, brought, origin.markOf(meter));
    if (brought > remaining) target.lowerFrom(meter, remaining, undefined);
  }
}

/**
 * A 429 named the dimensions `named` (by unit). When that is one windowed
 * dimension, its window is spent and ends when the retry hint says (sharper
 * than the response that shows the next window's jump, which arrives a
 * latency after it began). With several, the hint may be another's.
 */
export function alignToRetryHint(named: readonly Meter[], target: SyncTarget, retryAfterMs: number, now: number): void {
  const meter = named[0];
  if (meter === undefined || named.length > 1) return;
  const window = windowFromRetryHint(meter, retryAfterMs, now);
  if (!window) return;
  target.alignWindow(meter.name, window.startedBy, window.periodMs);
  target.lower(meter.name, 0);
}

/**
 * A 429 is direct evidence that this client draws more than its share of the
 * key: give up a quarter of its refill share and half of the headroom it
 * takes. Later responses showing slack, and time, give them back. One answer
 * per round: the requests admitted before the last cut (`seq` at or below
 * `meter.cutAtSeq`) were sent on what it knew then, so their 429s are that
 * same evidence again (a burst told a limit ten times too high draws ten at once).
 */
export function yieldShare(meter: Meter, target: SyncTarget, seq: number, admissions: number): void {
  if (seq <= meter.cutAtSeq) return;
  meter.cutAtSeq = admissions;
  const rate = meter.dimension.limit / meter.dimension.windowMs;
  meter.headroom = Math.max(MIN_SHARE, meter.headroom * 0.5);
  meter.share = Math.max(MIN_SHARE, meter.share * 0.75);
  meter.othersRate = Math.max(meter.othersRate, (1 - meter.share) * rate);
  target.setShare(meter.name, meter.share);
}
