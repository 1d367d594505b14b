import type { Estimate, Unit, Usage } from "../core/limits.js";
import type { FailureClass } from "../headers/failures.js";
import type { RateLimitView } from "../headers/types.js";
import type { QuotaEvent } from "../core/quota-types.js";

/** What every event about one call tells of it: its priority class and tenant (see docs/priorities.md). */
export interface CallEvent {
  /** The call's priority class: the one it named, else `defaultPriority` (`"default"` without `priorities`). */
  readonly priority: string;
  /** The call's tenant; `undefined` when it named none. */
  readonly tenant: string | undefined;
}

/** A request started waiting for admission (`limiter.on("queued", ...)`). */
export interface QueuedEvent extends CallEvent {
  /** The estimate it waits to be admitted on. */
  readonly estimate: Estimate;
  /** Requests waiting now, this one included. */
  readonly queued: number;
  /** Whether it is a retry of `run`, put back at the head of the queue. */
  readonly retry: boolean;
}

/** A request was admitted (`limiter.on("admitted", ...)`). */
export interface AdmittedEvent extends CallEvent {
  /** The estimate it was admitted on. */
  readonly estimate: Estimate;
  /** Milliseconds it waited in the queue; 0 when admitted at once. */
  readonly waitMs: number;
  /** Admitted requests not yet released, this one included. */
  readonly inFlight: number;
}

/** What one dimension reserved for a call, and what the call finally cost on it. */
export interface DimensionSettlement {
  /** What the dimension counts. */
  readonly unit: Unit;
  /** Charged at admission, from the estimate. */
  readonly reserved: number;
  /** Charged at release: the settled usage, the estimate if nothing was settled, 0 after a refund. */
  readonly used: number;
}

/** A reservation was released: its charges are final (`limiter.on("settled", ...)`). */
export interface SettledEvent extends CallEvent {
  /** The estimate it was admitted on. */
  readonly estimate: Estimate;
  /** The usage the last `settle()` reported; `undefined` when it never settled (the estimate stands) or refunded. */
  readonly usage: Usage | undefined;
  /** Whether `refund()` gave the whole charge back. */
  readonly refunded: boolean;
  /** Per dimension name: reserved at admission and used at release. */
  readonly dimensions: Readonly<Record<string, DimensionSettlement>>;
  /** Milliseconds from admission to release. */
  readonly heldMs: number;
}

/**
 * Why a request was refused: the queue held `maxQueue` (`queue_full`), it waited past its `maxWaitMs`
 * (`timeout`), its signal aborted (`aborted`), the limiter was closed (`closed`), it can never fit a
 * dimension's capacity (`too_large`), a shared store failed beyond retrying (`store`), or a calendar quota's
 * period cannot hold it (`quota`).
 * @inline
 */
export type RejectionReason = "queue_full" | "timeout" | "aborted" | "closed" | "too_large" | "store" | "quota";

/** A request was refused admission (`limiter.on("rejected", ...)`). */
export interface RejectedEvent extends CallEvent {
  /** The estimate it asked for. */
  readonly estimate: Estimate;
  /**
   * Why, in one word: the queue held `maxQueue` (`queue_full`), it waited past its `maxWaitMs` (`timeout`), its
   * signal aborted (`aborted`), the limiter was closed (`closed`), it can never fit a dimension's capacity
   * (`too_large`), or a shared store failed beyond retrying (`store`).
   */
  readonly reason: RejectionReason;
  /** What the caller's promise rejects with: a `LimiterError`, or the signal's `reason` when aborted. */
  readonly error: unknown;
  /** Milliseconds it waited in the queue first; 0 when refused at once. */
  readonly waitMs: number;
}

/** Rate-limit headers were applied, by `limiter.sync` or `reservation.sync` (`limiter.on("synced", ...)`). */
export interface SyncedEvent {
  /** The headers as parsed: what `sync()` returns. */
  readonly view: RateLimitView;
  /** The response's HTTP status, when the caller gave it. */
  readonly status: number | undefined;
}

/** A 429 was synced (`limiter.on("rateLimited", ...)`). */
export interface RateLimitedEvent {
  /** The 429 classified: `rate` pauses admission, `billing` (a spent quota) changes nothing. */
  readonly failure: FailureClass;
  /** The provider's retry hint, in ms, when it gave one. */
  readonly retryAfterMs: number | undefined;
  /** The headers that came with it, as parsed. */
  readonly view: RateLimitView;
}

/**
 * Headers reported a dimension's remaining further from the limiter's own count than `driftMargin`
 * allows (`limiter.on("drift", ...)`): another client draws on the key, estimates miss the provider's
 * count, or the configured limit is not the provider's.
 */
export interface DriftEvent {
  /** The dimension's name (`rpm`, `tpm`, ...). */
  readonly dimension: string;
  /** What the provider reports is left, brought forward to now and less what this limiter admitted since. */
  readonly reported: number;
  /** What the limiter's own count had left just before the headers applied. */
  readonly local: number;
  /** `reported - local`: negative when the provider counts more drawn than the limiter did. */
  readonly difference: number;
  /** The margin crossed, in the dimension's units: `driftMargin` times its limit. */
  readonly margin: number;
}

/**
 * What a 429 paused, and until when (`limiter.on("paused", ...)`, `snapshot().pauses`). A pause longer than
 * a minute is probed: it holds a minute at a time, the first call admitted after that goes through it (drawn
 * on the buckets as any call) and starts the next minute, and a later call that succeeds with room on what
 * it paused ends it. A per-day quota's pause (see `FailureClass.perDay`) and one of a minute or less hold
 * until their time. `limiter.resume()` and `setLimits` end every pause.
 */
export interface PauseState {
  /** The dimensions it pauses: those the 429 named, else every one. */
  readonly dimensions: readonly string[];
  /** Whether it pauses everything (the 429 named no budget): no call at all is admitted while it holds. */
  readonly all: boolean;
  /** Epoch ms at which its retry hint (at most a month) ends: it holds no longer. */
  readonly until: number;
  /** Epoch ms at which the stretch in force ends: the next probe may go then (`until` when not probed). */
  readonly heldUntil: number;
  /** Whether a later call that succeeds with room ends it. */
  readonly probed: boolean;
}

/**
 * What ended a pause early: a later call that succeeded with room, `limiter.resume()`, or `setLimits`.
 * @inline
 */
export type PauseEnd = "response" | "resume" | "setLimits";

/** A pause ended before its time (`limiter.on("resumed", ...)`); one that runs its time out ends silently. */
export interface ResumedEvent extends PauseState {
  /** What ended it. */
  readonly reason: PauseEnd;
}

/**
 * What a limiter has learned of the provider's prompt counts for one kind of request and model
 * (`snapshot().estimates`): the factor its own prompt estimates are multiplied by. See docs/estimates.md.
 * @inline
 */
export interface EstimateRatio {
  /** The kind of request: an endpoint (`chat.completions`, `messages`, ...) or an AI SDK provider (`openai.chat`). */
  readonly kind: string;
  /** The model, as the request names it; `undefined`: every model of the kind (what a model not yet seen uses). */
  readonly model: string | undefined;
  /**
   * What prompt estimates are multiplied by: the 95th percentile of the ratio counted / estimated over the latest
   * 64 calls (the largest while fewer than 20), within [0.5, 4]; never below 1 where the provider charges at
   * admission on its own character count (OpenAI and the compatible APIs).
   */
  readonly ratio: number;
  /** The calls it was learned from, at most the latest 64. */
  readonly samples: number;
}

/** A correction changed (`limiter.on("corrected", ...)`): what `snapshot().estimates` now shows for it. */
export interface EstimateCorrectedEvent extends EstimateRatio {
  /** The ratio before: 1 before the first call of its kind and model. */
  readonly previous: number;
}

/** Every event a limiter emits, by name, with its payload. */
export interface LimiterEvents {
  /** A request started waiting. */
  queued: QueuedEvent;
  /** A request was admitted, at once or from the queue. */
  admitted: AdmittedEvent;
  /** A reservation was released: its charges are final. */
  settled: SettledEvent;
  /** A request was refused admission. */
  rejected: RejectedEvent;
  /** Rate-limit headers were applied. */
  synced: SyncedEvent;
  /** A 429 was synced. */
  rateLimited: RateLimitedEvent;
  /** Headers strayed from the own count by more than `driftMargin`. */
  drift: DriftEvent;
  /** A 429 paused admission (see {@link PauseState}). */
  paused: PauseState;
  /** A pause ended before its time. */
  resumed: ResumedEvent;
  /** What the limiter learned of the provider's prompt counts changed a correction of its estimates. */
  corrected: EstimateCorrectedEvent;
  /** A calendar quota crossed 80% or 100% of its limit, or its period turned. */
  quota: QuotaEvent;
}

/**
 * The name of a limiter event.
 */
export type LimiterEventName = keyof LimiterEvents;

/** A listener of event `K`: called synchronously, in the order listeners were added. */
export type LimiterListener<K extends LimiterEventName> = (event: LimiterEvents[K]) => void;

/**
 * Removes the listener it was returned for; calling it again does nothing. Where the runtime has
 * `Symbol.dispose` (Node 20.4+ and later), the function is also disposable: `using off = limiter.on(...)`.
 * @inline
 */
export type Disposer = () => void;
