import type { ResetReading } from "./reset-evidence.js";

/** What header sync has learned of one dimension, and the readings it compares the next response with. */
export interface SyncState {
  /** `seq` of the freshest response whose levels were applied. */
  syncedSeq: number;
  /** When levels were last synced (monotonic ms). */
  lastSyncAt: number | undefined;
  /** Estimated rate (units/ms) at which other clients draw on the same key. */
  othersRate: number;
  /**
   * Fraction of a shared key's visible remaining this client claims: cut by
   * 429s (the evidence that several clients read the same remaining), growing back over time.
   */
  claim: number;
  /** The provider's level and the local one as the last sync left them. */
  lastTruth: number;
  lastSet: number;
  /** The provider's remaining as the last sync read it, less this limiter's draws not there yet (share evidence). */
  lastSeen: number;
  /** What this limiter had refunded on the dimension by the last sync. */
  lastRefunded: number;
  /** The dimension's limit at the last sync: readings of another are not compared. */
  lastLimit: number | undefined;
  /** The headers showed the provider metering this dimension in fixed windows: no share learning. */
  windowed: boolean;
  /** Admissions counted when a 429 last cut the share and the claim: 429s of requests admitted by then add nothing. */
  cutAtSeq: number;
  /** The reset reading later ones are compared with to tell a fixed window from a bucket. */
  resetAnchor: ResetReading | undefined;
}

/** What nothing has been learned of yet. */
export function createSyncState(): SyncState {
  return {
    syncedSeq: 0,
    lastSyncAt: undefined,
    othersRate: 0,
    claim: 1,
    lastTruth: 0,
    lastSet: 0,
    lastSeen: 0,
    lastRefunded: 0,
    lastLimit: undefined,
    windowed: false,
    cutAtSeq: 0,
    resetAnchor: undefined,
  };
}
