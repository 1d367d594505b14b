/**
 * What a limiter learns of how the provider counts a prompt against the library's own estimate of it:
 * per kind of request (an endpoint such as `chat.completions`, or an AI SDK provider such as `anthropic.messages`)
 * and model, a high quantile of the ratio counted / estimated over the latest calls. `limiter.fetch()`, the AI SDK
 * middleware and `limiter.estimate()` multiply their prompt estimates by it. See docs/estimates.md.
 */
import type { EstimateCorrectedEvent, EstimateRatio } from "../events/types.js";

/** The ratios the quantile is taken over: the latest calls of a kind and model. */
export const RATIO_WINDOW = 64;
/** The quantile taken: an estimate so corrected covers the provider's count on 95% of the latest calls. */
export const RATIO_QUANTILE = 0.95;
/** The most a correction multiplies an estimate by: a usage further off is clamped to it. */
export const MAX_RATIO = 4;
/** The least a correction multiplies an estimate by, where the provider charges what it counts. */
export const MIN_RATIO = 0.5;
/** Models learned apart, per limiter; the calls of further models teach (and use) their kind's ratio only. */
export const MAX_MODELS = 32;
/** An estimate below this many tokens is mostly the fixed per-message overhead: it teaches nothing of the text. */
export const MIN_LEARNED_ESTIMATE = 16;
/** A model name is cut to this many characters in its key: a body's name bounds no memory. */
const MAX_MODEL_CHARS = 128;

/**
 * Kinds whose provider charges its own count of the prompt (Anthropic: ITPM counts the tokens). Elsewhere (OpenAI
 * and the compatible APIs) the provider charges TPM at admission on an estimate from the request's characters
 * (https://platform.openai.com/docs/guides/rate-limits), which the default estimate errs above: a correction
 * there only ever raises an estimate, never lowers it below that default.
 */
function lowersEstimates(kind: string): boolean {
  return kind === "messages" || kind.includes("anthropic");
}

/** The latest ratios of one kind and model, and their quantile. */
class RatioWindow {
  private readonly ring = new Float64Array(RATIO_WINDOW);
  private readonly sorted = new Float64Array(RATIO_WINDOW);
  private next = 0;
  count = 0;
  ratio = 1;

  constructor(
    readonly kind: string,
    readonly model: string | undefined,
    private readonly floor: number,
  ) {}

  /** Takes one ratio (already bounded); returns whether the quantile changed. */
  add(ratio: number): boolean {
    const { ring, sorted } = this;
    let n = this.count;
    if (n === RATIO_WINDOW) {
      // The oldest ratio leaves the sorted copy: shift what lies above it down one place.
      const old = ring[this.next]!;
      let i = sorted.indexOf(old);
      for (; i < n - 1; i++) sorted[i] = sorted[i + 1]!;
      n -= 1;
    }
    ring[this.next] = ratio;
    this.next = (this.next + 1) % RATIO_WINDOW;
    let i = n;
    for (; i > 0 && sorted[i - 1]! > ratio; i--) sorted[i] = sorted[i - 1]!;
    sorted[i] = ratio;
    this.count = n + 1;
    // With fewer than 20 ratios the index is the last: the largest seen.
    const quantile = sorted[Math.min(this.count - 1, Math.ceil(RATIO_QUANTILE * this.count) - 1)]!;
    const next = Math.max(this.floor, quantile);
    if (next === this.ratio) return false;
    this.ratio = next;
    return true;
  }

  reading(): EstimateRatio {
    return { kind: this.kind, model: this.model, ratio: this.ratio, samples: this.count };
  }
}

/** Where a correction's change is told: the limiter's `corrected` channel, `undefined` while nobody listens. */
export interface CorrectionChannel {
  emit(event: EstimateCorrectedEvent): void;
}

/** An estimate `limiter.estimate()` made: learned from when the call's usage is settled. */
interface OwnEstimate {
  readonly kind: string;
  readonly model: string | undefined;
  /** The prompt as estimated before the correction. */
  readonly estimated: number;
}

/** The ratios one limiter has learned, per kind and model, bounded in number. */
export class EstimateRatios {
  /** By kind (the key `kind`), and by kind and model (`kind model`). */
  private readonly windows = new Map<string, RatioWindow>();
  private models = 0;
  /** The estimates `limiter.estimate()` handed out, for the settle of the calls admitted on them. */
  private readonly own = new WeakMap<object, OwnEstimate>();

  /** `channel()` is read at each change, so that nothing is built for nobody. */
  constructor(private readonly channel: () => CorrectionChannel | undefined) {}

  /** The factor a prompt estimate of `kind` and `model` is multiplied by: the model's, else its kind's, else 1. */
  ratioOf(kind: string, model: string | undefined): number {
    const window = (model !== undefined && this.windows.get(keyOf(kind, model))) || this.windows.get(kind);
    return window ? window.ratio : 1;
  }

  /** `input` corrected: rounded up, so that a correction of 1 changes nothing. */
  corrected(kind: string, model: string | undefined, input: number): number {
    const ratio = this.ratioOf(kind, model);
    return ratio === 1 ? input : Math.ceil(input * ratio);
  }

  /**
   * Learns from one call: the provider counted `counted` prompt tokens where the library estimated `estimated`.
   * A count that is not a finite number >= 0 teaches nothing; a ratio beyond the bounds counts as the bound.
   */
  learn(kind: string, model: string | undefined, estimated: number, counted: unknown): void {
    if (typeof counted !== "number" || !Number.isFinite(counted) || counted < 0) return;
    if (!(estimated >= MIN_LEARNED_ESTIMATE) || !Number.isFinite(estimated)) return;
    const ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, counted / estimated));
    const name = model === undefined ? undefined : model.slice(0, MAX_MODEL_CHARS);
    this.add(this.window(kind, undefined), ratio);
    if (name === undefined) return;
    const window = this.window(kind, name);
    if (window) this.add(window, ratio);
  }

  /** Remembers an estimate `limiter.estimate()` made, so that the settle of its call teaches its ratio. */
  remember(estimate: object, kind: string, model: string | undefined, estimated: number): void {
    this.own.set(estimate, { kind, model, estimated });
  }

  /** The copy the limiter keeps of a queued estimate stands for the caller's object. */
  carry(from: object, to: object): void {
    const own = this.own.get(from);
    if (own) this.own.set(to, own);
  }

  /** A call admitted on `estimate` settled its prompt at `input`: learned from if the estimate was the library's. */
  settled(estimate: object, input: number): void {
    const own = this.own.get(estimate);
    if (own) this.learn(own.kind, own.model, own.estimated, input);
  }

  /** Every correction learned, by key (`kind`, or `kind model`); `undefined` before the first. */
  readings(): Record<string, EstimateRatio> | undefined {
    if (this.windows.size === 0) return undefined;
    const readings: Record<string, EstimateRatio> = {};
    for (const [key, window] of this.windows) readings[key] = window.reading();
    return readings;
  }

  /** The window of `kind` and `model`, made on first use; `undefined` for a model past {@link MAX_MODELS}. */
  private window(kind: string, model: string | undefined): RatioWindow | undefined {
    const key = model === undefined ? kind : keyOf(kind, model);
    let window = this.windows.get(key);
    if (window) return window;
    if (model !== undefined) {
      if (this.models >= MAX_MODELS) return undefined;
      this.models += 1;
    } else if (this.windows.size - this.models >= MAX_MODELS) return undefined;
    window = new RatioWindow(kind, model, lowersEstimates(kind) ? MIN_RATIO : 1);
    this.windows.set(key, window);
    return window;
  }

  private add(window: RatioWindow | undefined, ratio: number): void {
    if (!window) return;
    const previous = window.ratio;
    if (!window.add(ratio)) return;
    this.channel()?.emit({ ...window.reading(), previous });
  }
}

function keyOf(kind: string, model: string): string {
  return `${kind} ${model}`;
}
