import { DAY, MINUTE, SECOND } from "../bounds.js";
import { fixedWindow, inferredWindow, readTriple, toDimension, tripleNames, type WindowRule } from "../dimension.js";
import type { Span } from "../durations.js";
import { parseCount } from "../numbers.js";
import { UNKNOWN_WINDOW } from "../window.js";
import { collect, type Dialect } from "./dialect.js";

/**
 * The window whose boundary the reset names. A boundary more than a minute away (with a
 * second of slack for rounding and latency) must be a day's; a near one that is also a
 * midnight could be either, so the day is taken (the slower refill); any other near one is
 * a minute's. No reset: the window is unknown, so a minute is assumed.
 */
function boundaryWindow(reset: Span | undefined, boundary: number | undefined): WindowRule {
  if (reset === undefined) return inferredWindow(UNKNOWN_WINDOW);
  const farOff = reset.ms > MINUTE + SECOND + reset.resolutionMs;
  const midnight = boundary !== undefined && boundary % DAY === 0;
  return fixedWindow(farOff || midnight ? DAY : MINUTE);
}

/**
 * OpenRouter: `X-RateLimit-{Limit,Remaining,Reset}` on requests, the reset being the epoch
 * ms of a fixed minute or day boundary (docs/providers.md#openrouter-and-together).
 */
export const readOpenRouter: Dialect = (headers, ctx) => {
  const reading = readTriple(headers, "requests", tripleNames("x-ratelimit"), ctx);
  const rule = boundaryWindow(reading.reset, parseCount(headers.get("x-ratelimit-reset")));
  return { dimensions: collect([toDimension(reading, rule)]) };
};
