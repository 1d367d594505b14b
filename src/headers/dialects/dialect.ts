import type { HeaderMap } from "../normalize.js";
import type { TimeContext } from "../reset.js";
import type { ReportedDimension } from "../types.js";

/** What one dialect read from a response's headers. */
export interface DialectResult {
  dimensions: Record<string, ReportedDimension>;
  /** A retry delay the dialect implies when no `Retry-After` is present (IETF's `t`). */
  retryAfterMs?: number;
}

/** Reads one provider's rate-limit headers. Pure; never throws. */
export type Dialect = (headers: HeaderMap, ctx: TimeContext) => DialectResult;

/** Named dimensions into a record; the first of a name wins and `undefined` entries are skipped. */
export function collect(entries: Iterable<[string, ReportedDimension] | undefined>): Record<string, ReportedDimension> {
  const dimensions: Record<string, ReportedDimension> = {};
  for (const entry of entries) {
    if (entry !== undefined && !Object.hasOwn(dimensions, entry[0])) dimensions[entry[0]] = entry[1];
  }
  return dimensions;
}
