import type { Clock } from "../core/clock.js";
import type { Dialect, SimulatedDialect } from "./dialects.js";
import type { DimensionName, OutputCharge, WindowMode } from "./dimensions.js";
import { DIMENSION_NAMES } from "./dimensions.js";

/**
 * What a latency function is told about an admitted call.
 * @inline
 */
export interface LatencyInput {
  /** Prompt tokens. */
  readonly prompt: number;
  /** The requested output cap. */
  readonly maxTokens: number;
  /** The answer's length in tokens. */
  readonly actual: number;
  /** Whether the answer is streamed (over HTTP with `stream: true`). */
  readonly stream: boolean;
  /**
   * Calls in flight once this one is admitted, this one included: a self-hosted server's
   * latency grows with it, e.g. `(c) => (300 + 15 * c.actual) * Math.max(1, c.inFlight / 8)`
   * for one that batches 8 calls at full speed and shares its throughput beyond.
   */
  readonly inFlight: number;
}

/**
 * What an arrival-delay function is told about a call the client has just sent.
 * @inline
 */
export interface ArrivalInput {
  /** 0-based index of the call in the order clients sent it to this provider. */
  readonly index: number;
  /** Prompt tokens. */
  readonly prompt: number;
  /** The requested output cap. */
  readonly maxTokens: number;
  /** Whether the answer is streamed (over HTTP with `stream: true`). */
  readonly stream: boolean;
}

/**
 * When an admitted call's rate-limit headers are stamped:
 * - `"admission"`: the meters as they stood right after the call was charged,
 *   sent with the response all the same (the relative resets are then as old
 *   as the call's latency);
 * - `"completion"`: the meters after the call's reservation is reconciled to
 *   its actual usage, as OpenAI reports them.
 *
 * A stream's head goes out at admission, so it always carries admission
 * headers; a 429 is stamped when it is decided. `date` is always the time sent.
 * @inline
 */
export type HeaderStamp = "admission" | "completion";

/**
 * What an `answerTokens` hook is told about an admitted call.
 * @inline
 */
export interface AnswerInput {
  /** 0-based arrival index of the call at this provider (rejected calls included). */
  readonly index: number;
  /** Prompt tokens. */
  readonly prompt: number;
  /** The requested output cap; a longer answer is cut off here (finish reason `length`). */
  readonly maxTokens: number;
  /** The parsed JSON request body over HTTP; `undefined` for `provider.call()`. */
  readonly body: unknown;
}

/**
 * Options of {@link createProvider}. Every limit is optional; an unset limit is not enforced.
 *
 * @example
 * ```ts
 * import { createProvider } from "llm-limiter/testing";
 *
 * // Anthropic's headers, separate input and output buckets, answers after 300 ms + 15 ms a token.
 * const provider = createProvider({
 *   itpm: 30_000,
 *   otpm: 8_000,
 *   dialect: "anthropic",
 *   latencyMs: (call) => 300 + 15 * call.actual,
 * });
 * ```
 */
export interface ProviderOptions<D extends SimulatedDialect = Dialect> {
  /** Requests per minute. */
  rpm?: number;
  /** Requests per day. */
  rpd?: number;
  /** Tokens per minute, charged prompt + max_tokens at admission and reconciled to prompt + actual. */
  tpm?: number;
  /** Tokens per day, charged like `tpm`. */
  tpd?: number;
  /** Input tokens per minute, charged the prompt at admission. */
  itpm?: number;
  /** Output tokens per minute, charged as `outputCharge` says. */
  otpm?: number;
  /**
   * Most calls in flight at once; a slot is held until the response (or stream) completes.
   * A self-hosted server's capacity (`dialect: "self-hosted"` answers beyond it as TGI does).
   */
  concurrency?: number;
  /**
   * Which provider's rate-limit headers to send: `"openai"`, `"anthropic"`, `"groq"` or
   * `"azure"` (which also sends `apim-request-id` and `x-ms-region`); or a provider that
   * sends none and tells its limits only in its 429s: `"gemini"`, `"bedrock"`, `"bare"`
   * (`retry-after` alone), `"openrouter"` or `"self-hosted"` (see `HeaderlessDialect`).
   * `D` is a {@link Dialect} unless the type says otherwise, so that a 429's body type is exact.
   * @default "openai"
   */
  dialect?: D;
  /**
   * How the server keeps count: `"bucket"` (continuous refill), `"fixed"` (counters reset
   * on clock-aligned minute and day boundaries) or `"azure"` (each per-minute limit as
   * floor(limit / 6) per 10 s window, per-day limits as `"fixed"`).
   * @default "bucket"
   */
  window?: WindowMode;
  /**
   * When OTPM is charged: `"estimate"` (`max_tokens` at admission, reconciled to the actual
   * output at completion) or `"actual"` (the actual output at completion only).
   * @default "estimate"
   */
  outputCharge?: OutputCharge;
  /**
   * Milliseconds from admission until the response completes, fixed or per
   * call (for example `(c) => 300 + 15 * c.actual`). At 0, responses
   * complete without a timer. Waits use the global `setTimeout`, so fake
   * timers drive them.
   * @default 0
   */
  latencyMs?: number | ((call: LatencyInput) => number);
  /**
   * Milliseconds from the client's send (`provider.call()` invoked, or the HTTP
   * request received) until the call reaches admission, where the meters are
   * checked and charged: connections opening, TLS, proxies, a busy event loop.
   * Fixed or per call, so jitter can be drawn (for example
   * `() => between(random, 0, 400)` over a `seededRandom`). Calls with equal
   * delays arrive in the order sent; a call on the wire is admitted (and
   * charged) even if its client gives up meanwhile. At 0, calls are admitted
   * at once, synchronously. Waits use the global `setTimeout`, so fake timers
   * drive them.
   * @default 0
   */
  arrivalDelayMs?: number | ((call: ArrivalInput) => number);
  /**
   * When an admitted call's rate-limit headers are stamped: `"admission"`, the meters right after the call
   * was charged (a stream's head always goes out then), or `"completion"`, after its reservation is
   * reconciled to its actual usage, as OpenAI reports them.
   * @default "completion"
   */
  stampHeaders?: HeaderStamp;
  /**
   * Seed of the answer lengths drawn when neither `actual` nor `answerTokens`
   * decides (seeds equal modulo 2^32 draw alike).
   * @default 0
   */
  seed?: number;
  /**
   * Decides the answer length of a call that does not pass `actual`; the
   * result is capped at `maxTokens`.
   * @default `undefined`: drawn from `seed`, uniform in 1..`maxTokens`
   */
  answerTokens?: (request: AnswerInput) => number;
  /**
   * Output cap assumed for an OpenAI-style HTTP request without `max_tokens`
   * or `max_completion_tokens` (a Responses API request: without `max_output_tokens`).
   * @default 4096
   */
  defaultMaxTokens?: number;
  /**
   * Time source: `now()` (monotonic) drives the meters and fixed-window
   * boundaries, `wallNow()` stamps `date` and RFC 3339 resets.
   * @default `performance.now()` and `Date.now()`, read at call time
   */
  clock?: Clock;
}

/** Options with defaults applied and every value checked. */
export interface ResolvedOptions {
  readonly limits: Partial<Readonly<Record<DimensionName, number>>>;
  readonly concurrency: number | undefined;
  readonly dialect: SimulatedDialect;
  readonly window: WindowMode;
  readonly outputCharge: OutputCharge;
  readonly latencyMs: number | ((call: LatencyInput) => number);
  readonly arrivalDelayMs: number | ((call: ArrivalInput) => number);
  readonly stampHeaders: HeaderStamp;
  readonly seed: number;
  readonly answerTokens: ((request: AnswerInput) => number) | undefined;
  readonly defaultMaxTokens: number;
  readonly clock: Clock;
}

/** Longest delay `setTimeout` honours; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const DIALECTS: readonly SimulatedDialect[] = [
  "openai",
  "anthropic",
  "groq",
  "azure",
  "gemini",
  "bedrock",
  "bare",
  "openrouter",
  "self-hosted",
];
const WINDOWS: readonly WindowMode[] = ["bucket", "fixed", "azure"];
const OUTPUT_CHARGES: readonly OutputCharge[] = ["estimate", "actual"];
const HEADER_STAMPS: readonly HeaderStamp[] = ["admission", "completion"];
const KNOWN_OPTIONS = new Set<string>([
  ...DIMENSION_NAMES,
  "concurrency",
  "dialect",
  "window",
  "outputCharge",
  "latencyMs",
  "arrivalDelayMs",
  "stampHeaders",
  "seed",
  "answerTokens",
  "defaultMaxTokens",
  "clock",
]);

const defaultClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
};

/**
 * Applies defaults and validates: `TypeError` for a wrong type or an unknown
 * option, `RangeError` for a value out of range.
 */
export function resolveOptions(options: ProviderOptions<SimulatedDialect> = {}): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("createProvider: options must be an object");
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new TypeError(`createProvider: unknown option "${key}"`);
  }
  const limits: Partial<Record<DimensionName, number>> = {};
  for (const name of DIMENSION_NAMES) {
    const value = options[name];
    if (value !== undefined) limits[name] = positiveInteger(name, value);
  }
  return {
    limits,
    concurrency: options.concurrency === undefined ? undefined : positiveInteger("concurrency", options.concurrency),
    dialect: oneOf("dialect", options.dialect ?? "openai", DIALECTS),
    window: oneOf("window", options.window ?? "bucket", WINDOWS),
    outputCharge: oneOf("outputCharge", options.outputCharge ?? "estimate", OUTPUT_CHARGES),
    latencyMs: delayOption("latencyMs", options.latencyMs ?? 0),
    arrivalDelayMs: delayOption("arrivalDelayMs", options.arrivalDelayMs ?? 0),
    stampHeaders: oneOf("stampHeaders", options.stampHeaders ?? "completion", HEADER_STAMPS),
    seed: seedOption(options.seed ?? 0),
    answerTokens: optionalFunction("answerTokens", options.answerTokens),
    defaultMaxTokens: positiveInteger("defaultMaxTokens", options.defaultMaxTokens ?? 4096),
    clock: clockOption(options.clock ?? defaultClock),
  };
}

/** Checks a delay (option or function result): a finite delay `setTimeout` can honour. */
export function checkedDelay(value: unknown, source: string): number {
  if (typeof value !== "number") throw new TypeError(`${source} must be a number, got ${typeof value}`);
  if (!(value >= 0 && value <= MAX_TIMER_MS)) {
    throw new RangeError(`${source} must be between 0 and ${MAX_TIMER_MS} ms, got ${value}`);
  }
  return value;
}

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== "number") throw new TypeError(`createProvider: ${name} must be a number, got ${typeof value}`);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`createProvider: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string") throw new TypeError(`createProvider: ${name} must be a string, got ${typeof value}`);
  const match = allowed.find((candidate) => candidate === value);
  if (match === undefined) {
    const choices = allowed.map((a) => `"${a}"`).join(", ");
    throw new RangeError(`createProvider: ${name} must be one of ${choices}, got "${value}"`);
  }
  return match;
}

/** A delay option: a function (its results are checked per call) or a fixed delay checked now. */
function delayOption<Input>(name: string, value: unknown): number | ((call: Input) => number) {
  if (typeof value === "function") return value as (call: Input) => number;
  return checkedDelay(value, `createProvider: ${name}`);
}

function seedOption(value: unknown): number {
  if (typeof value !== "number") throw new TypeError(`createProvider: seed must be a number, got ${typeof value}`);
  if (!Number.isSafeInteger(value)) throw new RangeError(`createProvider: seed must be an integer, got ${value}`);
  return value;
}

function optionalFunction<F>(name: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== "function") {
    throw new TypeError(`createProvider: ${name} must be a function, got ${typeof value}`);
  }
  return value;
}

function clockOption(value: unknown): Clock {
  const clock = value as Partial<Clock> | null;
  const valid = typeof clock === "object" && clock !== null;
  if (!valid || typeof clock.now !== "function" || typeof clock.wallNow !== "function") {
    throw new TypeError("createProvider: clock must be an object with now() and wallNow() functions");
  }
  return clock as Clock;
}
