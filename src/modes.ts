import type { Admission, AdmissionParts } from "./admission/admission.js";
import { LocalAdmission } from "./admission/local.js";
import type { PoolOrder } from "./admission/pool-order.js";
import { SharedAdmission } from "./admission/shared.js";
import { StoreLink } from "./admission/store-link.js";
import type { BucketPool } from "./buckets/bucket-pool.js";
import { LocalBuckets } from "./buckets/local-buckets.js";
import type { ResolvedOptions } from "./config.js";
import type { PooledMeters } from "./core/meters.js";
import type { LevelSync } from "./sync/level-sync.js";
import { LocalLevels } from "./sync/local-levels.js";
import { SharedLevels } from "./sync/shared-levels.js";

/** Where a limiter's buckets live, as admission and header sync reach them. */
export interface Mode {
  readonly admission: Admission;
  readonly levels: LevelSync;
}

/**
 * A limiter's place in a `LimiterGroup`: the shared dimensions (named with the
 * pool's prefix) it draws on beside its own, in one order across the members.
 */
export interface GroupSeat {
  readonly meters: PooledMeters;
  readonly buckets: BucketPool;
  readonly order: PoolOrder;
  /** Set by {@link modeFor}: the member's admission, which the group asks for predicted waits. */
  admission?: LocalAdmission;
}

/**
 * The buckets in this process, or in the shared store the options name: the
 * one place that tells the two apart. `probe`: hold the start-up burst until
 * news of the key (a shared store knows how the key stands, so it never probes).
 * `seat`: a group's member (whose options name no store: groups live in this process).
 */
export function modeFor(options: ResolvedOptions, parts: AdmissionParts, probe: boolean, seat?: GroupSeat): Mode {
  const { store, initialFraction, arrivalDelayMs } = options;
  if (store) {
    const link = new StoreLink(store, parts.clock, initialFraction, arrivalDelayMs, options.onWarning);
    return {
      admission: new SharedAdmission(parts, link, initialFraction, arrivalDelayMs),
      levels: new SharedLevels(link),
    };
  }
  const buckets = new LocalBuckets(parts.clock, initialFraction, arrivalDelayMs, seat?.buckets, parts.lag);
  const admission = new LocalAdmission(parts, buckets, probe, seat?.order);
  if (seat) seat.admission = admission;
  return { admission, levels: new LocalLevels(buckets) };
}
