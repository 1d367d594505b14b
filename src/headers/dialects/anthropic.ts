import { MINUTE } from "../bounds.js";
import { fixedWindow, readTriple, toDimension, tripleNames, type Reading } from "../dimension.js";
import type { HeaderMap } from "../normalize.js";
import type { TimeContext } from "../reset.js";
import type { ReportedUnit } from "../types.js";
import { collect, type Dialect } from "./dialect.js";

const PER_MINUTE = fixedWindow(MINUTE);

function read(headers: HeaderMap, ctx: TimeContext, unit: ReportedUnit, kind: string): Reading {
  return readTriple(headers, unit, tripleNames(`anthropic-ratelimit-${kind}`), ctx);
}

/**
 * Anthropic reports token remainders rounded to the nearest thousand (docs/providers.md#anthropic): the
 * true value may be up to 500 lower, so take it 500 lower (never below 0).
 */
function roundedDown(reading: Reading): Reading {
  return reading.remaining === undefined ? reading : { ...reading, remaining: Math.max(0, reading.remaining - 500) };
}

/**
 * Anthropic: `anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-*`, every
 * bucket per minute and continuously replenished, resets as RFC 3339 times of full
 * replenishment. Input and output tokens are separate buckets (`itpm`, `otpm`); the
 * `tokens-*` headers ("the most restrictive token limit in effect") are used only when
 * neither came. The `anthropic-priority-*` headers are ignored: Priority Tier capacity is a
 * separate commitment that only requests sent with a priority `service_tier` draw on, and
 * the standard buckets read here are the ones every other request meets.
 */
export const readAnthropic: Dialect = (headers, ctx) => {
  const input = toDimension(roundedDown(read(headers, ctx, "input", "input-tokens")), PER_MINUTE);
  const output = toDimension(roundedDown(read(headers, ctx, "output", "output-tokens")), PER_MINUTE);
  const tokens =
    input === undefined && output === undefined
      ? toDimension(roundedDown(read(headers, ctx, "tokens", "tokens")), PER_MINUTE)
      : undefined;
  return {
    dimensions: collect([toDimension(read(headers, ctx, "requests", "requests"), PER_MINUTE), input, output, tokens]),
  };
};
