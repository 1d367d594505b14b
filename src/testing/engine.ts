import { seededAnswerTokens } from "./answers.js";
import type { Completion } from "./completion.js";
import type { MeterReadings } from "./dialects.js";
import { httpDate, rateLimitHeaders, rejectionHeaders, requestIdHeaderName } from "./dialects.js";
import type { CallSize, Dimension, DimensionName, RejectionDimension } from "./dimensions.js";
import { DIMENSION_NAMES, createDimension } from "./dimensions.js";
import { ADMISSION_TOLERANCE, wholeUnitsLeft } from "./meter.js";
import type { ArrivalInput, ResolvedOptions } from "./options.js";
import { checkedDelay } from "./options.js";
import type { Rejection } from "./rejection.js";

/**
 * Response headers by lower-case name.
 * @inline
 */
export type ResponseHeaders = Record<string, string>;

/** A call the client has just sent, as an arrival-delay function sees it (less its index). */
export type SentCall = Omit<ArrivalInput, "index">;

/** A call on its way to admission. */
export interface Sending {
  /** Monotonic clock time it was sent. */
  readonly sentAt: number;
  /** How long until it reaches admission. */
  readonly delayMs: number;
}

/** One call as the server receives it, already sized. */
export interface AdmissionRequest extends CallSize {
  /** When the client sent it (`Sending.sentAt`). */
  readonly sentAt: number;
  /** Answer length to use; otherwise `answerTokens` or the seeded draw decides. */
  readonly actual?: number | undefined;
  readonly stream: boolean;
  /** Echoed in response bodies. */
  readonly model: string;
  /** The parsed HTTP body, handed to `answerTokens`; `undefined` in process. */
  readonly body: unknown;
}

/** The outcome of admission: a 429 to send now, or a call that is now running. */
export type Admission =
  | { readonly admitted: false; readonly rejection: Rejection; readonly headers: ResponseHeaders }
  | { readonly admitted: true; readonly call: AdmittedCall };

/** A running call: it holds its reservation and concurrency slot until `complete()`. */
export interface AdmittedCall {
  readonly completion: Completion;
  /** How long after admission the response completes. */
  readonly latencyMs: number;
  /** Headers stamped now (a stream's head is sent at admission). */
  headers(): ResponseHeaders;
  /**
   * Reconciles the reservation to the actual usage, frees the slot, and returns
   * the response headers, stamped as `stampHeaders` says. Call once.
   */
  complete(): ResponseHeaders;
}

/** One call as the simulator saw it; usable by benchmarks. */
export interface CallRecord {
  /** The call's id (the request-id header carries it as `req_<id>`). */
  readonly id: string;
  /** Monotonic clock time the client sent it; `receivedAt` less this is its arrival delay. */
  readonly sentAt: number;
  /** Monotonic clock time of arrival, which is also the admission decision. */
  readonly receivedAt: number;
  /** 200 if admitted, 429 if rejected. */
  readonly status: 200 | 429;
  /** Prompt tokens of the call. */
  readonly prompt: number;
  /** The call's output cap. */
  readonly maxTokens: number;
  /** Answer length (admitted calls). */
  readonly actual?: number;
  /** Monotonic clock time the response completed (admitted calls, once done). */
  readonly completedAt?: number;
  /** The binding dimension (rejected calls). */
  readonly rejectedBy?: RejectionDimension;
  /** The wait hinted (rejected calls that can ever fit): `retry-after-ms`, or whatever the dialect sends, if any. */
  readonly retryAfterMs?: number;
}

/** Counters since the provider was created. */
export interface ProviderStats {
  /** Admitted calls whose response has completed. */
  readonly served: number;
  /** Calls answered 429. */
  readonly rejected: number;
  /** 429s by binding dimension. */
  readonly rejectedBy: Readonly<Record<RejectionDimension, number>>;
  /** Admitted calls not yet completed. */
  readonly inFlight: number;
  /** Most calls ever in flight at once. */
  readonly maxInFlight: number;
  /** Tokens charged at admission, prompt + max_tokens summed over admitted calls. */
  readonly tokensCharged: number;
  /** Tokens used, prompt + actual summed over completed calls. */
  readonly tokensUsed: number;
  /** Every call in arrival order (copies). */
  readonly calls: readonly CallRecord[];
}

type MutableRecord = { -readonly [K in keyof CallRecord]: CallRecord[K] };

interface Blocker {
  readonly dimension: RejectionDimension;
  readonly waitMs: number;
  readonly rejection: Omit<Rejection, "retryAfterMs">;
}

/**
 * The simulated server's accounting: admission against every dimension at
 * once, reservations reconciled at completion, concurrency slots, stats.
 * Knows nothing about HTTP or timers; callers wait the arrival delay and
 * `latencyMs` themselves.
 */
export class ProviderEngine {
  readonly #options: ResolvedOptions;
  readonly #dimensions: readonly Dimension[];
  /** Completion times of calls in flight, for the concurrency cap's retry-after. */
  readonly #inFlight = new Set<{ readonly completesAt: number }>();
  readonly #records: MutableRecord[] = [];
  readonly #rejectedBy: Record<RejectionDimension, number> = {
    rpm: 0,
    rpd: 0,
    tpm: 0,
    tpd: 0,
    itpm: 0,
    otpm: 0,
    concurrency: 0,
  };
  #sent = 0;
  #served = 0;
  #maxInFlight = 0;
  #tokensCharged = 0;
  #tokensUsed = 0;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    const now = options.clock.now();
    this.#dimensions = DIMENSION_NAMES.flatMap((name) => {
      const limit = options.limits[name];
      return limit === undefined ? [] : [createDimension(name, limit, options.window, options.outputCharge, now)];
    });
  }

  /** The options this engine runs with. */
  get options(): ResolvedOptions {
    return this.#options;
  }

  /** Counts a call the client has just sent and draws its arrival delay. */
  send(call: SentCall): Sending {
    const sentAt = this.#options.clock.now();
    const option = this.#options.arrivalDelayMs;
    const index = this.#sent++;
    const input = { index, prompt: call.prompt, maxTokens: call.maxTokens, stream: call.stream };
    const delayMs = typeof option === "number" ? option : checkedDelay(option(input), "arrivalDelayMs()");
    return { sentAt, delayMs };
  }

  /** Decides a call now: admit it (taking its reservation and a slot) or reject it, consuming nothing. */
  admit(request: AdmissionRequest): Admission {
    const now = this.#options.clock.now();
    const index = this.#records.length;
    const id = String(index + 1).padStart(8, "0");
    const { prompt, maxTokens } = request;
    const record: MutableRecord = { id, sentAt: request.sentAt, receivedAt: now, status: 429, prompt, maxTokens };
    const blocker = this.#bindingBlocker(request, now);
    if (blocker) {
      this.#records.push(record);
      return this.#reject(record, blocker, now);
    }
    // Decide the answer before taking anything, so a throwing hook leaks nothing.
    const actual = this.#answerLength(request, index);
    const latencyMs = this.#latency(request, actual);
    this.#records.push(record);
    record.status = 200;
    record.actual = actual;
    const epochs = this.#dimensions.map((d) => d.meter.take(d.admissionCost(request), now));
    const slot = { completesAt: now + latencyMs };
    this.#inFlight.add(slot);
    this.#maxInFlight = Math.max(this.#maxInFlight, this.#inFlight.size);
    this.#tokensCharged += request.prompt + request.maxTokens;
    const stampedAtAdmission = this.#options.stampHeaders === "admission" ? this.#rateLimitHeaders(now) : undefined;

    const completion: Completion = {
      id,
      model: request.model,
      promptTokens: request.prompt,
      outputTokens: actual,
      truncated: actual >= request.maxTokens,
      createdAt: this.#options.clock.wallNow(),
    };
    return {
      admitted: true,
      call: {
        completion,
        latencyMs,
        headers: () => this.#headers(id, this.#rateLimitHeaders(this.#options.clock.now())),
        complete: () => {
          const end = this.#options.clock.now();
          this.#dimensions.forEach((d, i) => {
            const refund = d.completionRefund(request, actual);
            if (refund > 0) d.meter.refund(refund, end, epochs[i] ?? 0);
            else if (refund < 0) d.meter.take(-refund, end);
          });
          this.#inFlight.delete(slot);
          this.#served += 1;
          this.#tokensUsed += request.prompt + actual;
          record.completedAt = end;
          return this.#headers(id, stampedAtAdmission ?? this.#rateLimitHeaders(end));
        },
      },
    };
  }

  /** A snapshot of the counters and call records. */
  stats(): ProviderStats {
    return {
      served: this.#served,
      rejected: Object.values(this.#rejectedBy).reduce((sum, n) => sum + n, 0),
      rejectedBy: { ...this.#rejectedBy },
      inFlight: this.#inFlight.size,
      maxInFlight: this.#maxInFlight,
      tokensCharged: this.#tokensCharged,
      tokensUsed: this.#tokensUsed,
      calls: this.#records.map((r) => ({ ...r })),
    };
  }

  /** Each enforced dimension's level now, in its units: a bucket's exact level, negative while in debt. */
  levels(): Partial<Record<DimensionName, number>> {
    const now = this.#options.clock.now();
    return Object.fromEntries(this.#dimensions.map(({ name, meter }) => [name, meter.level(now)]));
  }

  /**
   * How many calls of this size would be admitted now, one after another (the concurrency cap
   * included); takes nothing. `Infinity` when such a call costs nothing anywhere.
   */
  roomFor(size: CallSize): number {
    const now = this.#options.clock.now();
    const cap = this.#options.concurrency;
    let room = cap === undefined ? Infinity : Math.max(0, cap - this.#inFlight.size);
    for (const d of this.#dimensions) {
      const cost = d.admissionCost(size);
      if (cost > 0) room = Math.min(room, Math.max(0, Math.floor((d.meter.level(now) + ADMISSION_TOLERANCE) / cost)));
    }
    return room;
  }

  /** The dimension that keeps this call out longest, or none if it fits everywhere now. */
  #bindingBlocker(size: CallSize, now: number): Blocker | undefined {
    const blockers: Blocker[] = [];
    for (const d of this.#dimensions) {
      const cost = d.admissionCost(size);
      const waitMs = d.meter.waitMs(cost, now);
      if (waitMs > 0) {
        const used = d.meter.limit - wholeUnitsLeft(d.meter.level(now));
        blockers.push({
          dimension: d.name,
          waitMs,
          rejection: { dimension: d.name, unit: d.unit, limit: d.meter.limit, used, requested: cost },
        });
      }
    }
    const cap = this.#options.concurrency;
    if (cap !== undefined && this.#inFlight.size >= cap) {
      const earliest = Math.min(...[...this.#inFlight].map((s) => s.completesAt));
      blockers.push({
        dimension: "concurrency",
        waitMs: Math.max(0, earliest - now),
        rejection: { dimension: "concurrency", unit: "requests", limit: cap, used: this.#inFlight.size, requested: 1 },
      });
    }
    // Ties go to the first blocker found (the order of DIMENSION_NAMES, concurrency last).
    return blockers.reduce<Blocker | undefined>(
      (worst, b) => (worst && worst.waitMs >= b.waitMs ? worst : b),
      undefined,
    );
  }

  #reject(record: MutableRecord, blocker: Blocker, now: number): Admission {
    const retryAfterMs = Number.isFinite(blocker.waitMs) ? Math.ceil(blocker.waitMs) : undefined;
    this.#rejectedBy[blocker.dimension] += 1;
    record.rejectedBy = blocker.dimension;
    const headers = this.#headers(record.id, this.#rateLimitHeaders(now));
    if (retryAfterMs !== undefined) record.retryAfterMs = retryAfterMs;
    Object.assign(headers, rejectionHeaders(this.#options.dialect, retryAfterMs));
    return { admitted: false, rejection: { ...blocker.rejection, retryAfterMs }, headers };
  }

  #answerLength(request: AdmissionRequest, index: number): number {
    if (request.actual !== undefined) return request.actual;
    const hook = this.#options.answerTokens;
    if (!hook) return seededAnswerTokens(this.#options.seed, index, request.maxTokens);
    const tokens = hook({ index, prompt: request.prompt, maxTokens: request.maxTokens, body: request.body });
    if (!Number.isSafeInteger(tokens) || tokens < 0) {
      throw new RangeError(`answerTokens must return a non-negative integer, got ${tokens}`);
    }
    return Math.min(tokens, request.maxTokens);
  }

  #latency(request: AdmissionRequest, actual: number): number {
    const option = this.#options.latencyMs;
    if (typeof option === "number") return option;
    const inFlight = this.#inFlight.size + 1;
    const input = { prompt: request.prompt, maxTokens: request.maxTokens, actual, stream: request.stream, inFlight };
    return checkedDelay(option(input), "latencyMs()");
  }

  /** The response headers, sent now, around rate-limit headers stamped whenever `stampHeaders` says. */
  #headers(id: string, rateLimit: ResponseHeaders): ResponseHeaders {
    return {
      date: httpDate(this.#options.clock.wallNow()),
      [requestIdHeaderName(this.#options.dialect)]: `req_${id}`,
      ...rateLimit,
    };
  }

  /** The dialect's rate-limit headers for the meters at `now`. */
  #rateLimitHeaders(now: number): ResponseHeaders {
    const readings: MeterReadings = Object.fromEntries(
      this.#dimensions.map(({ name, meter }) => [
        name,
        { limit: meter.limit, level: meter.level(now), resetMs: meter.resetMs(now) },
      ]),
    );
    return rateLimitHeaders(this.#options.dialect, readings, this.#options.clock.wallNow());
  }
}
