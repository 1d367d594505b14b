import { SECOND } from "../bounds.js";
import { fixedWindow, readTriple, toDimension, tripleNames, type Reading } from "../dimension.js";
import { collect, type Dialect } from "./dialect.js";

const PER_SECOND = fixedWindow(SECOND);

function min(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/** The stricter of a static and a dynamic reading: the lower limit and the lower remaining. */
function tighter(base: Reading, dynamic: Reading): Reading {
  return {
    unit: base.unit,
    limit: min(base.limit, dynamic.limit),
    remaining: min(base.remaining, dynamic.remaining),
    reset: base.reset ?? dynamic.reset,
  };
}

/**
 * Together: `x-ratelimit-{limit,remaining,reset}` (requests) and
 * `x-tokenlimit-{limit,remaining}` (tokens), documented per SECOND. Their `-dynamic`
 * variants report the dynamic rate (Together answers 429 above it); where both come, the
 * tighter value of each binds.
 */
export const readTogether: Dialect = (headers, ctx) => {
  const requests = tighter(
    readTriple(headers, "requests", tripleNames("x-ratelimit"), ctx),
    readTriple(headers, "requests", tripleNames("x-ratelimit", "-dynamic"), ctx),
  );
  const tokens = tighter(
    readTriple(headers, "tokens", tripleNames("x-tokenlimit"), ctx),
    readTriple(headers, "tokens", tripleNames("x-tokenlimit", "-dynamic"), ctx),
  );
  return { dimensions: collect([toDimension(requests, PER_SECOND), toDimension(tokens, PER_SECOND)]) };
};
