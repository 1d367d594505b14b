import { SECOND } from "../bounds.js";
import { fixedWindow, readTriple, toDimension, type Reading } from "../dimension.js";
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
    readTriple(headers, "requests", { limit: "x-ratelimit-limit", remaining: "x-ratelimit-remaining", reset: "x-ratelimit-reset" }, ctx),
    readTriple(headers, "requests", { limit: "x-ratelimit-limit-dynamic", remaining: "x-ratelimit-remaining-dynamic" }, ctx),
  );
  const tokens = tighter(
    readTriple(headers, "tokens", { limit: "x-tokenlimit-limit", remaining: "x-tokenlimit-remaining" }, ctx),
    readTriple(headers, "tokens", { limit: "x-tokenlimit-limit-dynamic", remaining: "x-tokenlimit-remaining-dynamic" }, ctx),
  );
  return { dimensions: collect([toDimension(requests, PER_SECOND), toDimension(tokens, PER_SECOND)]) };
};
