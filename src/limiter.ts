import type { Admission } from "./admission/admission.js";
import { checkMaxWaitMs, resolveOptions, type InternalOptions } from "./config.js";
import { buildBudget, mergeLimits, type Budget } from "./core/budget.js";
import { wholeUnits } from "./core/bucket.js";
import type { Clock } from "./core/clock.js";
import { LoopLag } from "./core/loop-lag.js";
import { LimiterClosedError, LimiterError, RequestTooLargeError } from "./core/errors.js";
import { copyEstimate } from "./core/amounts.js";
import { warnOfIsolatedBuckets } from "./core/isolate-warning.js";
import { Ledger } from "./core/ledger.js";
import type { Estimate, LimitChanges, Limits } from "./core/limits.js";
import { EstimateRatios } from "./core/estimate-ratios.js";
import { isRecord } from "./estimate/count.js";
import { endpointOfBody } from "./estimate/endpoint.js";
import { estimateRequest } from "./estimate/estimate-request.js";
import type { EstimateRequestOptions, RequestEstimate } from "./estimate/types.js";
import { Meters } from "./core/meters.js";
import { checkTenant, type PriorityClasses } from "./core/priorities.js";
import type { SyncOrigin } from "./core/origin.js";
import { AdmittedCall, type CallHost, type Reservation, type SyncReading } from "./core/reservation.js";
import { copyResponse, unreadable, unreadView } from "./core/response-reading.js";
import { retryPolicy } from "./core/retry.js";
import { runAdmitted, type RunPlan } from "./core/run.js";
import { DEFAULT_MAX_USAGE } from "./core/usage-cap.js";
import { checkOnQuota } from "./core/quota-config.js";
import type { QuotaReport } from "./core/quota-types.js";
import { Quotas } from "./core/quotas.js";
import type { DimensionSnapshot } from "./buckets/types.js";
import { limitedFetch, type FetchOptions } from "./fetch/index.js";
import { EventHub } from "./events/hub.js";
import { rejection } from "./events/payloads.js";
import type { Disposer, EstimateRatio, LimiterEventName, LimiterListener, PauseState } from "./events/types.js";
import { dimensionStats, queueStats, type DimensionStats } from "./core/usage-stats.js";
import type { HeaderInput, RateLimitView } from "./headers/types.js";
import { modeFor, type GroupSeat } from "./modes.js";
import type { AcquireOptions, LimiterOptions, RunOptions, RunResult, SyncOptions } from "./options.js";
import { HeaderSync } from "./sync/header-sync.js";
import { saysRequestTooLarge } from "./sync/too-large.js";

/** The seat of the limiter being built by {@link joinGroup}, read by its constructor. */
let joining: GroupSeat | undefined;

/** A limiter that takes `seat` in a `LimiterGroup`: its shared dimensions are the group's. */
export function joinGroup(options: LimiterOptions, seat: GroupSeat): Limiter {
  joining = seat;
  try {
    return new Limiter(options);
  } finally {
    joining = undefined;
  }
}

/**
 * A held budget as {@link LimiterSnapshot} shows it.
 * @inline
 */
export interface HeldState {
  /** The configured limit: units the calls in flight may hold at once. */
  readonly limit: number;
  /** What is free now: the limit less what the calls in flight hold. */
  readonly available: number;
}

/** What {@link Limiter.snapshot} returns: every budget with its level, and the counts of requests. */
export interface LimiterSnapshot {
  /**
   * Every dimension by name (`rpm`, `tpm`, a custom one, one learned from headers), levels floored,
   * with its use over the last window.
   */
  readonly dimensions: Record<string, DimensionSnapshot & DimensionStats>;
  /** Present when a concurrency limit is configured: the limit and the slots free now. */
  readonly concurrency?: {
    /** The configured `concurrency`: requests in flight at once. */
    readonly limit: number;
    /** Slots free now: the limit less the slots this limiter's requests hold (not counting other processes'). */
    readonly available: number;
  };
  /** Requests waiting for admission. */
  readonly queued: number;
  /** Admitted requests not yet released. */
  readonly inFlight: number;
  /** Milliseconds the longest-waiting queued request has waited; 0 when nothing waits. */
  readonly oldestWaitMs: number;
  /**
   * Present while the event loop's lag widens the arrival allowance: the milliseconds a call admitted now is
   * allowed to take to reach the provider, `arrivalDelayMs` plus the recent lag (how late the limiter's timers
   * fired), which decays once the loop keeps time again. See docs/usage.md.
   */
  readonly arrivalAllowanceMs?: number;
  /** Present while a 429's pause holds: what each one paused, and until when. */
  readonly pauses?: readonly PauseState[];
  /**
   * Present once a call has taught the limiter how the provider counts prompts against its estimates: the
   * correction per kind of request (`chat.completions`) and per kind and model (`chat.completions gpt-4o`).
   */
  readonly estimates?: Readonly<Record<string, EstimateRatio>>;
  /** Present when calendar quotas are configured: the limiter's own, as `quota()` reports them. */
  readonly quotas?: QuotaReport;
  /** Present when held budgets are configured: each one's limit and what is free now, by unit. */
  readonly held?: Readonly<Record<string, HeldState>>;
}

/** What a call that succeeded with no headers synced reports. */
const NOTHING_REPORTED: Readonly<Record<string, { readonly remaining?: number }>> = {};

/** A response the caller gave no status for, or a 2xx or 3xx one: a call that succeeded. */
function succeeded(status: number | undefined): boolean {
  return status === undefined || (status >= 200 && status < 400);
}

/**
 * Keeps calls inside every configured budget at once: each request waits in a
 * queue (by priority class, then shared between tenants, FIFO within one) until
 * all of its dimensions have room, takes from all of them atomically, and
 * reconciles its reservation to actual usage afterwards.
 */
export class Limiter {
  private readonly clock: Clock;
  private readonly maxWaitMs: number;
  /** The configured arrival allowance, which `snapshot()` shows only once the event loop's lag widens it. */
  private readonly arrivalDelayMs: number;
  private readonly classes: PriorityClasses;
  /** `run` without options: shared, so the common call allocates no plan. */
  private readonly plainRun: RunPlan;
  private readonly warn: (warning: Error) => void;
  /** The budgets as configured; the effective ones also fold in what the headers taught. */
  private limits: Limits;
  private readonly meters = new Meters(joining?.meters);
  private readonly ledger: Ledger;
  private readonly admission: Admission;
  private readonly headers: HeaderSync;
  /** Calendar quotas and held budgets, when configured. */
  private readonly quotas: Quotas | undefined;
  private readonly events = new EventHub((warning) => this.warn(warning));
  /**
   * What the provider's counts taught of this limiter's prompt estimates, per kind and model: `limiter.fetch()`,
   * the AI SDK middleware and {@link Limiter.estimate} correct their estimates by it.
   * @internal
   */
  readonly ratios = new EstimateRatios(() => this.events.channels.corrected);
  private readonly host: CallHost & { maxUsage: number } = {
    // Only into the dimension the reservation was charged on, not one re-added under its name.
    give: (meter, amount, chargedAt) => {
      if (!meter.retired) this.admission.give(meter.name, amount, chargedAt);
    },
    arrived: (meter, amount, chargedAt) => {
      if (!meter.retired) this.admission.arrived(meter.name, amount, chargedAt);
    },
    refunded: () => this.admission.admitWhatFits(),
    released: (lease, refundable) => {
      this.ledger.closed(refundable);
      this.admission.released(lease);
    },
    read: (headers, options) => this.read(headers, options),
    apply: (reading, origin) => this.applyView(reading, origin),
    reapply: ({ failure }, origin) => {
      if (this.admission.closed) return;
      const pause = this.headers.pauseFor(failure, origin, this.meters, this.ledger.admissions);
      if (pause) this.admission.hold(pause.names, pause.ms, pause.perDay, this.ledger.admissions);
    },
    succeeded: (origin) => this.admission.succeeded(origin.seq, false, NOTHING_REPORTED),
    readmit: (estimate, signal, notBefore, refundable, rank, tenant) => {
      // An estimate admitted at once is the caller's object, which `fn` may have changed since.
      let copy: Estimate;
      try {
        copy = this.queuedEstimate(estimate, rank);
      } catch (problem) {
        return Promise.reject(problem);
      }
      return this.admission.readmit(copy, signal, notBefore, refundable, rank, tenant);
    },
    now: () => this.clock.now(),
    warn: (warning) => this.warn(warning),
    maxUsage: DEFAULT_MAX_USAGE,
    classify: (error) => this.headers.classify(error),
    events: this.events.channels,
    learn: (estimate, input) => this.ratios.settled(estimate, input),
  };

  constructor(options?: LimiterOptions);
  /** @internal A store of the limiter's own protocol: a group member's, or a test's in-process one. */
  constructor(options: InternalOptions);
  constructor(options: InternalOptions = {}) {
    const resolved = resolveOptions(options);
    const budget = buildBudget(resolved.limits);
    this.clock = resolved.clock;
    this.maxWaitMs = resolved.maxWaitMs;
    this.arrivalDelayMs = resolved.arrivalDelayMs;
    this.classes = resolved.classes;
    const rank = this.classes.defaultRank;
    this.plainRun = { refundOnError: false, retry: undefined, signal: undefined, rank, tenant: undefined };
    this.warn = resolved.onWarning;
    this.host.maxUsage = resolved.maxUsage;
    if (!resolved.store) warnOfIsolatedBuckets(this.warn);
    this.limits = resolved.limits;
    this.ledger = new Ledger(this.host, this.meters);
    const { channels } = this.events;
    const { budgets } = resolved;
    this.quotas = budgets
      ? new Quotas(budgets, this.clock, channels, resolved.maxUsage, () => this.admission.admitWhatFits())
      : undefined;
    const parts = {
      clock: this.clock,
      lag: new LoopLag(),
      meters: this.meters,
      ledger: this.ledger,
      maxQueue: resolved.maxQueue,
      reserves: this.classes.reserves,
      priorities: this.classes.names,
      events: channels,
      quotas: this.quotas,
      onQuota: budgets?.onQuota,
    };
    // A caller that set `initial` said how the key stands: no start-up probe.
    const mode = modeFor(resolved, parts, options.initial === undefined, joining);
    this.admission = mode.admission;
    this.headers = new HeaderSync(mode.levels, this.clock, resolved.provider, channels, resolved.driftMargin);
    this.apply(budget);
  }

  /**
   * Waits for admission, runs `fn`, settles its reported usage and releases.
   * `fn` resolves to `{ value, used? }`; `value` is returned. If `fn` throws, the
   * charge stands (unless `refundOnError`) and the error is rethrown.
   */
  run<T>(
    estimate: Estimate,
    fn: (reservation: Reservation) => Promise<RunResult<T>> | RunResult<T>,
    options?: RunOptions,
  ): Promise<T> {
    let plan: RunPlan;
    let admitted: Promise<AdmittedCall> | AdmittedCall | undefined;
    try {
      if (typeof fn !== "function") throw new TypeError("run(): fn must be a function");
      plan = options
        ? {
            refundOnError: options.refundOnError === true,
            retry: retryPolicy(options.retry),
            signal: options.signal,
            rank: this.classes.rankOf(options.priority),
            tenant: checkTenant(options.tenant),
          }
        : this.plainRun;
      admitted =
        this.admitNow(estimate, options, plan.refundOnError, plan.rank) ??
        this.enqueue(estimate, options, plan.refundOnError, plan.rank);
    } catch (error) {
      return this.refused(estimate, error, options);
    }
    if (admitted instanceof AdmittedCall) return runAdmitted(admitted, fn, plan);
    return admitted.then((call) => runAdmitted(call, fn, plan));
  }

  /** Waits for admission and returns the reservation; the caller must `release()` it. */
  acquire(estimate: Estimate, options?: AcquireOptions): Promise<Reservation> {
    try {
      const rank = options ? this.classes.rankOf(options.priority) : this.classes.defaultRank;
      checkTenant(options?.tenant);
      // The caller may refund() what it acquired.
      const admitted = this.admitNow(estimate, options, true, rank);
      return admitted ? Promise.resolve(admitted) : this.enqueue(estimate, options, true, rank);
    } catch (error) {
      return this.refused(estimate, error, options);
    }
  }

  /**
   * A reservation if `estimate` fits now and nobody is queued; else `undefined`.
   * Never waits. Not available with a shared store, which answers asynchronously.
   */
  tryAcquire(estimate: Estimate): Reservation | undefined {
    this.check(estimate, undefined, this.classes.defaultRank);
    return this.admission.tryNow(estimate, this.classes.defaultRank);
  }

  /**
   * Changes budgets at run time; waiters that can no longer fit are rejected, and every pause a 429 set
   * ends (as with {@link Limiter.resume}). Throws on bad config, changing nothing.
   */
  setLimits(changes: LimitChanges): void {
    const limits = mergeLimits(this.limits, changes);
    const budget = buildBudget(limits);
    this.limits = limits;
    this.reconfigure(budget, false);
    // The caller has said what the budget is: no 429's pause outlives that.
    this.admission.liftPauses("setLimits");
  }

  /**
   * Ends every pause a 429 set (see {@link PauseState}), per-day ones included, and lets retries held for
   * their hint go: the next waiter is admitted at once if the buckets have room. With a shared store, the
   * pauses end for every process on the key. The buckets' levels are left as they are.
   */
  resume(): void {
    if (this.admission.closed) return;
    this.admission.liftPauses("resume");
  }

  /**
   * Applies a response's rate-limit headers as the provider's current truth:
   * limits it reports cap the configured ones (or add budgets), levels are
   * lowered (never raised) to its remaining; `{ status: 429 }` pauses
   * admission. Returns the parsed view. For headers tied to one request, prefer
   * `reservation.sync`, which also discounts what was admitted after it.
   * Headers, options or a body that throw when read (a getter, Proxy or iterator)
   * change nothing: a warning through `onWarning`, and an empty view. Throws
   * TypeError only for an unknown `provider`.
   */
  sync(headers: HeaderInput, options?: SyncOptions): RateLimitView {
    const reading = this.read(headers, options);
    // A hostile input was reported through onWarning and changes nothing.
    if (reading === undefined) return unreadView();
    this.applyView(reading, this.headers.current(this.ledger.admissions));
    return reading.view;
  }

  /**
   * Adds `listener` to event `name` (see {@link LimiterEvents}); the returned function removes it.
   * Listeners run synchronously; one that throws is reported through `onWarning` and admission carries on.
   * Nothing is built for an event nobody listens to.
   */
  on<K extends LimiterEventName>(name: K, listener: LimiterListener<K>): Disposer {
    return this.events.on(name, listener);
  }

  /**
   * Current levels of every dimension (floored: what a request could take now) with their use over the
   * last window, the concurrency slots, the queue.
   */
  snapshot(): LimiterSnapshot {
    const now = this.clock.now();
    const levels = this.admission.levels();
    const queue = queueStats(this.admission.waiting(), this.meters.list, now);
    const dimensions: LimiterSnapshot["dimensions"] = {};
    for (const [name, d] of Object.entries(levels.dimensions)) {
      const stats = dimensionStats(this.meters.byName.get(name), queue.costs.get(name) ?? 0, now);
      dimensions[name] = { ...d, available: wholeUnits(d.available), ...stats };
    }
    const counts = { queued: this.admission.queued, inFlight: this.ledger.inFlight, oldestWaitMs: queue.oldestWaitMs };
    const pauses = this.admission.pauses();
    const limit = this.meters.concurrency;
    let snapshot: LimiterSnapshot =
      limit === undefined
        ? { dimensions, ...counts }
        : { dimensions, concurrency: { limit, available: limit - levels.slotsInUse }, ...counts };
    if (levels.arrivalAllowanceMs > this.arrivalDelayMs) {
      snapshot = { ...snapshot, arrivalAllowanceMs: levels.arrivalAllowanceMs };
    }
    if (pauses) snapshot = { ...snapshot, pauses };
    const estimates = this.ratios.readings();
    if (estimates) snapshot = { ...snapshot, estimates };
    if (!this.quotas) return snapshot;
    const held = this.quotas.heldReport();
    snapshot = { ...snapshot, quotas: this.quotas.report(undefined) };
    return held ? { ...snapshot, held } : snapshot;
  }

  /**
   * The calendar quotas in their current periods: the limiter's own, or with `tenant` that tenant's (a tenant
   * with nothing kept shows a fresh period). Per unit, then period: `{ limit, used, reserved, remaining,
   * resetsAt }`, dollars for `usd`. A promise, as a shared store will be asked; `{}` without quotas.
   */
  quota(tenant?: string): Promise<QuotaReport> {
    try {
      checkTenant(tenant);
      return Promise.resolve(this.quotas ? this.quotas.report(tenant) : {});
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A `fetch` for an SDK client (`new OpenAI({ fetch })`, `new Anthropic({ fetch })`, the AI SDK's
   * `createOpenAI({ fetch })`, LangChain's `configuration: { fetch }`) that admits every request
   * through this limiter: it estimates the JSON body (as {@link Limiter.estimate} does), waits in the queue (the
   * request's signal aborts the wait), syncs every attempt's headers, 429s included, and settles the response's
   * usage, holding the reservation until a stream ends; the usage teaches the estimates. See docs/integrations.md.
   */
  fetch(options?: FetchOptions): typeof globalThis.fetch {
    return limitedFetch(() => this, options, {
      checkPriority: (priority) => this.classes.rankOf(priority),
      warn: (warning) => this.warn(warning),
    });
  }

  /**
   * What a request body will cost at admission, as `limiter.fetch()` estimates it: {@link estimateRequest}'s
   * prompt count multiplied by what this limiter has learned of the provider's counts for the body's endpoint
   * and model (see {@link LimiterSnapshot.estimates}), and its output cap. For the manual form: pass the result
   * to `run` or `acquire` and settle `{ input, output }` as the provider reported them (for Anthropic, input
   * plus cache reads and writes is what the ratio compares; see docs/estimates.md), and the settle teaches the
   * ratio. With a `tokenizer` the count is the caller's own: it is neither corrected nor learned from. Throws
   * `TypeError` on a body that is not a JSON object or on bad options, as `estimateRequest` does.
   *
   * @example
   * ```ts
   * import OpenAI from "openai";
   * import { Limiter } from "llm-limiter";
   *
   * const openai = new OpenAI({ maxRetries: 0 });
   * const limiter = new Limiter({ rpm: 500, tpm: 200_000, provider: "openai" });
   * const body = { model: "gpt-4o-mini", max_tokens: 512, messages: [{ role: "user" as const, content: "Hi" }] };
   * const completion = await limiter.run(limiter.estimate(body), async (reservation) => {
   *   const data = await openai.chat.completions.create(body, { signal: reservation.signal });
   *   const used = data.usage && { input: data.usage.prompt_tokens, output: data.usage.completion_tokens };
   *   return { value: data, used };
   * });
   * ```
   */
  estimate(body: unknown, options: EstimateRequestOptions = {}): RequestEstimate {
    const estimate = estimateRequest(body, options);
    if (options.tokenizer !== undefined || !isRecord(body)) return estimate;
    const kind = options.endpoint ?? endpointOfBody(body);
    const model = typeof body.model === "string" ? body.model : undefined;
    const corrected = { input: this.ratios.corrected(kind, model, estimate.input), output: estimate.output };
    this.ratios.remember(corrected, kind, model, estimate.input);
    return corrected;
  }

  /** Resolves when nothing is queued or in flight. */
  onIdle(): Promise<void> {
    return this.admission.onIdle();
  }

  /**
   * Resolves once every write to the shared store made so far has been answered or has failed: settles
   * and refunds (sent now rather than batched with the next), lease releases and renewals in flight,
   * header syncs. It never rejects (a failed write is reported through `onWarning`), and resolves at once
   * in memory. Hand it to `ctx.waitUntil` on Cloudflare Workers (or `waitUntil` from `@vercel/functions`)
   * so that a request's writes finish before its isolate may stop. See docs/runtimes.md.
   */
  flush(): Promise<void> {
    return this.admission.written();
  }

  /**
   * Rejects every waiter with `LimiterClosedError` and clears timers; later
   * calls reject too. In-flight calls finish. Resolves once a shared store has
   * every settle, release and header sync made so far (at once in memory).
   */
  close(): Promise<void> {
    this.quotas?.close();
    return this.admission.close();
  }

  /**
   * Reads a response for sync: its headers and options copied once (bounded), its view, a 429's class. A
   * hostile input (a getter, Proxy or iterator that throws, in the headers, the options or the body) is
   * `undefined`, reported through `onWarning`: it changes nothing. Throws TypeError only on an unknown
   * `provider`, a caller's mistake.
   */
  private read(headers: HeaderInput, options: SyncOptions | undefined): SyncReading | undefined {
    const copy = copyResponse(headers, options);
    if (copy instanceof Error) return void this.warn(copy);
    const view = this.headers.parse(copy.headers, copy.options);
    try {
      const failure = this.headers.failureOf(copy.headers, copy.options);
      return { view, status: copy.options?.status, failure, tooLarge: saysRequestTooLarge(copy.options?.body) };
    } catch (error) {
      return void this.warn(unreadable("the response body", error));
    }
  }

  /** Header sync: learned limits first (a budget learned here admits only once synced), then levels and pauses. */
  private applyView({ view, status, failure, tooLarge }: SyncReading, origin: SyncOrigin): void {
    if (this.admission.closed) return;
    this.admission.heard();
    const learned = this.headers.learn(view, origin, failure, this.meters, tooLarge);
    const { admissions, inFlight } = this.ledger;
    const discovered = this.headers.discover(failure, succeeded(status), origin, admissions, inFlight);
    if (learned || discovered) this.reconfigure(buildBudget(this.limits), false);
    const pause = this.headers.apply(view, origin, failure, this.meters, this.ledger.admissions);
    if (pause) this.admission.hold(pause.names, pause.ms, pause.perDay, this.ledger.admissions);
    else if (failure === undefined && succeeded(status))
      this.admission.succeeded(origin.seq, origin.admittedAtMs === undefined, view.dimensions);
    const { synced, rateLimited } = this.events.channels;
    synced?.emit({ view, status });
    if (failure) rateLimited?.emit({ failure, retryAfterMs: failure.retryAfterMs, view });
    this.admission.admitWhatFits();
  }

  /**
   * A request refused before it could queue: `rejected` listeners hear of the limiter's own refusals (its
   * `priority` and `tenant` were checked by then: a bad one is a TypeError).
   */
  private refused(estimate: Estimate, error: unknown, options: AcquireOptions | undefined): Promise<never> {
    const rejected = this.events.channels.rejected;
    if (rejected && error instanceof LimiterError) {
      const priority = options?.priority ?? this.classes.names[this.classes.defaultRank]!;
      try {
        rejected.emit(rejection(estimate, error, 0, priority, options?.tenant));
      } catch {
        // A listener threw and so did onWarning: still a rejection, never a throw out of run() or acquire().
      }
    }
    return Promise.reject(error);
  }

  /**
   * Applies a new configured budget (merged with learned limits) and rejects waiters that
   * can no longer fit; then admits what fits, unless `admit` is false (the caller will).
   */
  private reconfigure(budget: Budget, admit = true): void {
    this.apply(budget);
    // Each round that starts a probe leaves one more provisional limit out (at most one round per learned one).
    while (this.rejectTooLarge()) this.apply(budget);
    if (admit) this.admission.admitWhatFits();
  }

  /**
   * Rejects the waiters that can no longer fit, but not those too large only for a provisional
   * learned limit: each such limit starts a probe instead. Returns whether one did (the budget
   * must be merged again without it, and the waiters checked again).
   */
  private rejectTooLarge(): boolean {
    let probed = false;
    this.admission.rejectWhere((estimate, reserve) => {
      const problem = this.meters.problemWith(estimate, reserve);
      if (!this.probes(problem)) return problem;
      probed = true;
      return undefined;
    });
    return probed;
  }

  /** Whether `problem` is a call too large only for a provisional learned limit, which then goes out as a probe. */
  private probes(problem: Error | undefined): boolean {
    return problem instanceof RequestTooLargeError && this.headers.probe(problem.dimension);
  }

  private apply(configured: Budget): void {
    this.meters.apply(this.headers.merge(configured));
    this.admission.configure();
  }

  /** Throws on a request that can never be admitted: the limiter closed, a bad estimate or bad options. */
  private check(estimate: Estimate, options: AcquireOptions | undefined, rank: number): void {
    if (this.admission.closed) throw new LimiterClosedError();
    let problem = this.meters.problemWith(estimate, this.classes.reserves[rank]!);
    while (this.probes(problem)) {
      this.reconfigure(buildBudget(this.limits), false);
      problem = this.meters.problemWith(estimate, this.classes.reserves[rank]!);
    }
    if (problem) throw problem;
    if (!options) return;
    const { signal } = options;
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError("signal must be an AbortSignal");
    if (options.maxWaitMs !== undefined) checkMaxWaitMs(options.maxWaitMs);
    if (options.onQuota !== undefined) checkOnQuota(options.onQuota);
    signal?.throwIfAborted();
  }

  /** Validates, then admits at once when the queue is empty and everything fits. Throws on bad input. */
  private admitNow(
    estimate: Estimate,
    options: AcquireOptions | undefined,
    refundable: boolean,
    rank: number,
  ): AdmittedCall | undefined {
    this.check(estimate, options, rank);
    return this.admission.admitNow(estimate, options?.signal, refundable, rank, options?.tenant);
  }

  /** Queues a request (validated already) on a copy of its estimate; throws where the copy is bad. */
  private enqueue(
    estimate: Estimate,
    options: AcquireOptions | undefined,
    refundable: boolean,
    rank: number,
  ): Promise<AdmittedCall> {
    const maxWaitMs = options?.maxWaitMs ?? this.maxWaitMs;
    const copy = this.queuedEstimate(estimate, rank);
    const onQuota = options?.onQuota;
    return this.admission.enqueue(copy, options?.signal, maxWaitMs, refundable, rank, options?.tenant, onQuota);
  }

  /**
   * What a waiter keeps of `estimate`: an object is read once into a copy of our own, checked again (its
   * getters may answer otherwise now), so that a caller changing it while the request waits (to NaN, say)
   * cannot stall the queue. Throws where the copy is bad.
   */
  private queuedEstimate(estimate: Estimate, rank: number): Estimate {
    const copy = copyEstimate(estimate);
    const problem = copy === estimate ? undefined : this.meters.problemWith(copy, this.classes.reserves[rank]!);
    if (problem) throw problem;
    if (copy !== estimate) this.ratios.carry(estimate as object, copy as object);
    return copy;
  }
}
