import type { Budget } from "../core/budget.js";
import type { Clock } from "../core/clock.js";
import { untilDayTurns } from "../core/day-quota.js";
import type { Meter } from "../core/meter.js";
import type { Meters } from "../core/meters.js";
import type { Channels } from "../events/hub.js";
import type { SyncOrigin } from "../core/origin.js";
import { classifyFailure, readFailure, type FailureClass } from "../headers/failures.js";
import { parseRateLimitHeaders } from "../headers/parse.js";
import type { HeaderInput, ParseOptions, ProviderName, RateLimitView } from "../headers/types.js";
import { LearnedLimits } from "./learned-limits.js";
import type { LevelSync, PauseOrder } from "./level-sync.js";

/** How one response is read: whose dialect, its status, its body (`SyncOptions`). */
export interface ResponseReading {
  readonly provider?: ProviderName;
  readonly status?: number;
  readonly body?: unknown;
}

/**
 * Response headers into the limiter: limits learned from them (merged with
 * the configured budget), the levels they report, and what a 429 calls for.
 */
export class HeaderSync {
  /**
   * With a shared store other replicas draw on the same levels: a rate measured from this process's own calls
   * would be its part of the key, not the key's, so only a process alone on its levels measures one.
   */
  private readonly learned: LearnedLimits;
  /** `seq` of the freshest response whose limits were learned. */
  private learnedSeq = 0;

  constructor(
    private readonly levels: LevelSync,
    private readonly clock: Clock,
    /** The limiter's `provider` option. */
    private readonly provider: ProviderName | undefined,
    private readonly events: Channels,
    /** The limiter's `driftMargin`: a share of each dimension's limit. */
    private readonly driftMargin: number,
  ) {
    this.learned = new LearnedLimits(levels.ownDraws(new Map()) !== undefined);
  }

  /** The configured budget with the limits learned so far folded in. */
  merge(configured: Budget): Budget {
    return this.learned.merge(configured, this.clock.now());
  }

  /**
   * A call costs more than dimension `name` holds: whether it goes out as a probe instead of
   * failing, the dimension's limit being a provisional learned one (see `LearnedLimits`). The
   * caller then rebuilds the budget.
   */
  probe(name: string): boolean {
    return this.learned.probe(name);
  }

  /** The origin of headers applied as current, tied to no request (`seq`: admissions so far). */
  current(seq: number): SyncOrigin {
    return this.levels.current(seq);
  }

  parse(headers: HeaderInput, options: ResponseReading | undefined): RateLimitView {
    return parseRateLimitHeaders(headers, this.parseOptions(options));
  }

  /** Reads a failure as headers are read here (this clock, this provider's dialect). */
  classify(error: unknown): FailureClass {
    const options = this.parseOptions(undefined);
    return untilDayTurns(classifyFailure(error, options), options.wallNow!);
  }

  /** A 429, read once: for the windows it may lengthen and for the pause it calls for. */
  failureOf(headers: HeaderInput, options: ResponseReading | undefined): FailureClass | undefined {
    if (options?.status !== 429) return undefined;
    const parse = this.parseOptions(options);
    return untilDayTurns(readFailure({ status: 429, headers, body: options.body }, parse), parse.wallNow!);
  }

  /**
   * Learns the limits `view` reports, unless a fresher response was learned
   * from already (headers from an older request never undo what a fresher one
   * said). Returns whether the budget may have changed: the caller rebuilds it
   * before the levels are applied, so that a budget learned here is synced before it admits.
   */
  learn(
    view: RateLimitView,
    origin: SyncOrigin,
    failure: FailureClass | undefined,
    meters: Meters,
    /** The 429's body is the provider's own "request too large" (see `saysRequestTooLarge`). */
    tooLarge: boolean,
  ): boolean {
    if (origin.seq < this.learnedSeq) return false;
    this.learnedSeq = origin.seq;
    const facts = { now: this.clock.now(), origin, meters: this.levels.ownDraws(meters.byName), failure };
    // The provider's own "request too large" confirms the token limits this response reports.
    const confirmsTokens = failure?.kind === "rate" && tooLarge;
    return this.learned.learn(view, facts, confirmsTokens);
  }

  /**
   * A response's outcome for the adaptive concurrency limit of a provider that reports nothing: `served`, or a
   * rate-limit 429 (`failure`); returns whether the limit changed (the caller rebuilds the budget).
   */
  discover(
    failure: FailureClass | undefined,
    served: boolean,
    origin: SyncOrigin,
    admissions: number,
    inFlight: number,
  ): boolean {
    const outcome = failure?.kind === "rate" ? "limited" : failure === undefined && served ? "served" : undefined;
    const facts = { seq: origin.seq, admissions, inFlight, now: this.clock.now(), hintMs: failure?.retryAfterMs };
    return this.learned.discovered(outcome, facts);
  }

  /**
   * Applies the levels `view` reports, then a rate-limit 429's drain
   * (billing 429s are not about rate and change nothing). Returns the pause
   * the 429 asks for, which admission puts in force.
   */
  apply(
    view: RateLimitView,
    origin: SyncOrigin,
    failure: FailureClass | undefined,
    meters: Meters,
    admissions: number,
  ): PauseOrder | undefined {
    this.levels.apply(view, meters.list, origin, this.clock.now(), this.events.drift && this.heard);
    return this.pauseFor(failure, origin, meters, admissions);
  }

  /**
   * A rate-limit 429's drain and the pause it asks for (billing 429s are not about rate and change nothing).
   * Read again for the same request, it cuts no share twice (only a 429 admitted after the last cut cuts).
   */
  pauseFor(
    failure: FailureClass | undefined,
    origin: SyncOrigin,
    meters: Meters,
    admissions: number,
  ): PauseOrder | undefined {
    if (failure?.kind !== "rate") return undefined;
    return this.levels.rateLimited(failure, meters.list, origin.seq, admissions, this.clock.now());
  }

  /** A dimension's level as counted and as reported: a `drift` event when they differ by more than the margin. */
  private readonly heard = (meter: Meter, local: number, reported: number): void => {
    const margin = this.driftMargin * meter.dimension.limit;
    const difference = reported - local;
    if (Math.abs(difference) > margin)
      this.events.drift?.emit({ dimension: meter.name, reported, local, difference, margin });
  };

  /** How headers are read here: this clock, and the call's provider or the limiter's. */
  private parseOptions(options: ResponseReading | undefined): ParseOptions {
    const provider = options?.provider ?? this.provider;
    return { wallNow: this.clock.wallNow(), ...(provider ? { provider } : {}) };
  }
}
