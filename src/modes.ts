import type { Admission, AdmissionParts } from "./admission/admission.js";
import { LocalAdmission } from "./admission/local.js";
import { SharedAdmission } from "./admission/shared.js";
import { StoreLink } from "./admission/store-link.js";
import { LocalBuckets } from "./buckets/local-buckets.js";
import type { ResolvedOptions } from "./config.js";
import type { LevelSync } from "./sync/level-sync.js";
import { LocalLevels } from "./sync/local-levels.js";
import { SharedLevels } from "./sync/shared-levels.js";

/** Where a limiter's buckets live, as admission and header sync reach them. */
export interface Mode {
  readonly admission: Admission;
  readonly levels: LevelSync;
}

/**
 * The buckets in this process, or in the shared store the options name: the
 * one place that tells the two apart. `probe`: hold the start-up burst until
 * news of the key (a shared store knows how the key stands, so it never probes).
 */
export function modeFor(options: ResolvedOptions, parts: AdmissionParts, probe: boolean): Mode {
  const { store, initialFraction, arrivalDelayMs } = options;
  if (store) {
    const link = new StoreLink(store, parts.clock, initialFraction, arrivalDelayMs, options.onWarning);
    return {
      admission: new SharedAdmission(parts, link, initialFraction, arrivalDelayMs),
      levels: new SharedLevels(link),
    };
  }
  const buckets = new LocalBuckets(parts.clock, initialFraction, arrivalDelayMs);
  return { admission: new LocalAdmission(parts, buckets, probe), levels: new LocalLevels(buckets) };
}
