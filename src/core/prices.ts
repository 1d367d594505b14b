import type { Estimate } from "./limits.js";
import type { Prices } from "./quota-types.js";
import { notANumber, plainObject, unknownOption } from "./values.js";

/** Nano-dollars in a dollar: money is kept in whole nano-dollars, so sums of a month of calls do not drift. */
export const NANO_PER_USD = 1e9;
/** A price above this many USD per million tokens is a mistake (no model costs that much). */
const MAX_PRICE = 100_000;
const PRICE_KEYS: readonly string[] = ["input", "output", "cachedInput", "cacheWrite"];

/** Prices as nano-dollars per token (whole numbers): USD per million tokens times 1,000. */
export interface NanoPrices {
  readonly input: number;
  readonly output: number;
  readonly cachedInput: number;
  readonly cacheWrite: number;
  /** The highest of them: what a plain-number estimate is reserved at (it may be all output). */
  readonly most: number;
}

/** A price per million tokens as whole nano-dollars per token; a price finer than 1/1000 rounds up. */
function nanoPerToken(what: string, value: unknown): number {
  if (typeof value !== "number") throw notANumber(what, value);
  if (!(value >= 0 && value <= MAX_PRICE)) {
    throw new RangeError(`${what} must be a number of USD per million tokens in [0, ${MAX_PRICE}], got ${value}`);
  }
  const scaled = value * 1000;
  const near = Math.round(scaled);
  // 2.675 * 1000 is 2674.9999999999995 in binary: a price with three decimals is that many nano-dollars exactly.
  return Math.abs(scaled - near) < 1e-6 ? near : Math.ceil(scaled);
}

/** Checks `prices` (USD per million tokens) and turns them into nano-dollars per token. */
export function resolvePrices(prices: unknown): NanoPrices {
  const p = plainObject("prices", prices);
  for (const key of Object.keys(p)) if (!PRICE_KEYS.includes(key)) throw unknownOption("prices", key, PRICE_KEYS);
  const { input: inputPrice, output: outputPrice, cachedInput, cacheWrite } = p as Partial<Prices>;
  const input = nanoPerToken("prices.input", inputPrice);
  const output = nanoPerToken("prices.output", outputPrice);
  const cached = cachedInput === undefined ? input : nanoPerToken("prices.cachedInput", cachedInput);
  const write = cacheWrite === undefined ? input : nanoPerToken("prices.cacheWrite", cacheWrite);
  return { input, output, cachedInput: cached, cacheWrite: write, most: Math.max(input, output, cached, write) };
}

/**
 * What `amount` costs at `prices`, in whole nano-dollars (rounded up), each count taken at most `max` (a
 * usage is untrusted). Cache reads and writes are parts of `input`; a plain number is priced at `plain`
 * per token (the input price for a usage, the highest price for an estimate).
 */
export function nanoCost(amount: Estimate, prices: NanoPrices, plain: number, max: number): number {
  if (typeof amount === "number") return Math.ceil(Math.min(amount, max) * plain);
  const input = Math.min(amount.input, max);
  const cached = Math.min(amount.cachedInput ?? 0, input);
  const written = Math.min(amount.cacheWrite ?? 0, input - cached);
  const fresh = input - cached - written;
  const output = Math.min(amount.output, max);
  return Math.ceil(
    fresh * prices.input + cached * prices.cachedInput + written * prices.cacheWrite + output * prices.output,
  );
}
