/**
 * Drives a real Limiter under fake time next to an independent reference model
 * (plain bucket arithmetic written here, not imported from src) and checks the
 * invariants of shared/design.md at every admission and after every step.
 *
 * Outcomes are observed through the promises `acquire` returns, in the order the
 * limiter settled them, and replayed against the model at the virtual time they
 * happened. Time only moves in steps that end on every instant where the model
 * expects something (an admission, a deadline), plus the millisecond before it, so
 * a late admission shows as a stuck head and an early one as a bucket that does
 * not cover the cost.
 */
import FakeTimers from "@sinonjs/fake-timers";
import { getEventListeners } from "node:events";
import { expect } from "vitest";
import {
  Limiter,
  LimiterClosedError,
  RequestTooLargeError,
  ReservationReleasedError,
  WaitTimeoutError,
  type CustomLimit,
  type Estimate,
  type LimitChanges,
  type Limits,
  type Reservation,
  type Unit,
} from "../../src/index.js";

export const MINUTE = 60_000;
export const DAY = 86_400_000;

export const SHORTHAND_SHAPES = {
  rpm: { unit: "requests", windowMs: MINUTE },
  tpm: { unit: "tokens", windowMs: MINUTE },
  rpd: { unit: "requests", windowMs: DAY },
  tpd: { unit: "tokens", windowMs: DAY },
  itpm: { unit: "input", windowMs: MINUTE },
  otpm: { unit: "output", windowMs: MINUTE },
} as const satisfies Record<string, { unit: Unit; windowMs: number }>;

export type Shorthand = keyof typeof SHORTHAND_SHAPES;

/** Budgets in the model's own terms; turned into limiter options and LimitChanges below. */
export interface Config {
  shorthands: Partial<Record<Shorthand, number>>;
  custom: Record<string, CustomLimit>;
  capacity: Record<string, number>;
  concurrency?: number | undefined;
}

/** One change for `setLimits`. */
export type Change =
  | { kind: "limit"; name: Shorthand; value: number | null }
  | { kind: "custom"; name: string; spec: CustomLimit | null }
  | { kind: "capacity"; name: string; value: number | null }
  | { kind: "concurrency"; value: number | null };

export interface Arrival {
  estimate: Estimate;
  abortable: boolean;
  /**
   * Longest wait in ms; or, as `{ patience }`, that multiple of the wait the model
   * expects with nothing else happening (so deadlines land near admissions).
   */
  maxWaitMs?: number | { patience: number } | undefined;
}

export type Op =
  | ({ kind: "arrive" } & Arrival)
  | { kind: "advance"; ms: number }
  | { kind: "settle"; pick: number; used: Estimate }
  | { kind: "refund"; pick: number }
  | { kind: "release"; pick: number }
  | { kind: "abort"; pick: number }
  | { kind: "setLimits"; change: Change }
  | { kind: "close" };

export interface Scenario {
  config: Config;
  initial: "full" | "empty" | number;
  ops: Op[];
}

/**
 * A cheap assertion for the checks run thousands of times per property (vitest's
 * `expect` costs far more per call); the message is built only on failure.
 */
function check(ok: boolean, message: () => string): asserts ok {
  if (!ok) throw new Error(message());
}

// ---------------------------------------------------------------------------
// The reference model
// ---------------------------------------------------------------------------

/** One bucket instance: a dimension removed and added again, or given another unit, is a new one. */
interface Bucket {
  readonly name: string;
  readonly unit: Unit;
  limit: number;
  windowMs: number;
  capacity: number;
  level: number;
  at: number;
}

function costOn(unit: Unit, amount: Estimate): number {
  if (unit === "requests") return 1;
  if (typeof amount === "number") return amount;
  return unit === "tokens" ? amount.input + amount.output : amount[unit];
}

/** Float slack for comparing model and limiter: relative to the bucket's size. */
function tolerance(bucket: Bucket): number {
  return 1e-6 * Math.max(1, bucket.capacity, Math.abs(bucket.level));
}

interface Shape {
  unit: Unit;
  limit: number;
  windowMs: number;
  capacity: number;
}

/** The dimensions a config defines, or `undefined` if the limiter must refuse it. */
function shapesOf(config: Config): Map<string, Shape> | undefined {
  const shapes = new Map<string, Shape>();
  for (const [name, limit] of Object.entries(config.shorthands)) {
    const { unit, windowMs } = SHORTHAND_SHAPES[name as Shorthand];
    shapes.set(name, { unit, windowMs, limit, capacity: limit });
  }
  for (const [name, spec] of Object.entries(config.custom)) {
    shapes.set(name, {
      unit: spec.unit,
      windowMs: spec.windowMs,
      limit: spec.limit,
      capacity: spec.capacity ?? spec.limit,
    });
  }
  for (const [name, capacity] of Object.entries(config.capacity)) {
    const shape = shapes.get(name);
    if (!shape) return undefined; // a burst size for a dimension that is not configured
    shape.capacity = capacity;
  }
  return shapes;
}

class Model {
  now = 0;
  inFlight = 0;
  closed = false;
  readonly buckets = new Map<string, Bucket>();
  config: Config = { shorthands: {}, custom: {}, capacity: {} };

  constructor(
    config: Config,
    private readonly initialFraction: number,
  ) {
    this.reconfigure(config);
  }

  /**
   * Applies a config at `now`: a kept dimension refills at its old rate first,
   * then is clamped to the new capacity; a new one (or one that now counts
   * another unit) starts at `initial`.
   */
  reconfigure(config: Config): void {
    const shapes = shapesOf(config);
    if (!shapes) throw new Error("model: invalid config");
    for (const [name, bucket] of [...this.buckets])
      if (shapes.get(name)?.unit !== bucket.unit) this.buckets.delete(name);
    for (const [name, shape] of shapes) {
      const kept = this.buckets.get(name);
      if (!kept) {
        this.buckets.set(name, { name, ...shape, level: shape.capacity * this.initialFraction, at: this.now });
        continue;
      }
      this.refill(kept);
      Object.assign(kept, {
        limit: shape.limit,
        windowMs: shape.windowMs,
        capacity: shape.capacity,
        level: Math.min(kept.level, shape.capacity),
      });
    }
    this.config = config;
  }

  /** level(t) = min(capacity, level + (t - t0) * limit / windowMs). */
  levelOf(bucket: Bucket, t = this.now): number {
    return Math.min(bucket.capacity, bucket.level + ((t - bucket.at) * bucket.limit) / bucket.windowMs);
  }

  private refill(bucket: Bucket): void {
    bucket.level = this.levelOf(bucket);
    bucket.at = this.now;
  }

  /** The slot limit in force: a limiter with no budget at all admits one call at a time (until headers say more). */
  get concurrency(): number | undefined {
    return this.config.concurrency ?? (this.buckets.size === 0 ? 1 : undefined);
  }

  slotFree(): boolean {
    const limit = this.concurrency;
    return limit === undefined || this.inFlight < limit;
  }

  /** The dimension on which `estimate` can never fit, if any. */
  tooLargeOn(estimate: Estimate): Bucket | undefined {
    for (const bucket of this.buckets.values()) if (costOn(bucket.unit, estimate) > bucket.capacity) return bucket;
    return undefined;
  }

  /**
   * Buckets whose level, within tolerance, does not cover the cost: `margin` -1 asks "could it fit", +1 "must it fit".
   */
  short(estimate: Estimate, margin: -1 | 1): string[] {
    const names: string[] = [];
    for (const bucket of this.buckets.values()) {
      const room = this.levelOf(bucket) - costOn(bucket.unit, estimate);
      if (room < margin * tolerance(bucket)) names.push(bucket.name);
    }
    return names;
  }

  /** Exact ms until every bucket covers `estimate` with nothing else happening. */
  waitFor(estimate: Estimate, from = this.now): number {
    let wait = 0;
    for (const bucket of this.buckets.values()) {
      const missing = costOn(bucket.unit, estimate) - this.levelOf(bucket, from);
      if (missing > 0) wait = Math.max(wait, (missing * bucket.windowMs) / bucket.limit);
    }
    return wait;
  }

  /** Takes the cost from every bucket; returns what each instance was charged. */
  take(estimate: Estimate): Map<Bucket, number> {
    const charges = new Map<Bucket, number>();
    for (const bucket of this.buckets.values()) {
      const cost = costOn(bucket.unit, estimate);
      this.refill(bucket);
      bucket.level -= cost;
      charges.set(bucket, cost);
    }
    this.inFlight++;
    return charges;
  }

  /** Moves each charge to `target(unit)`; only the instance that was charged sees the difference. */
  recharge(charges: Map<Bucket, number>, target: (unit: Unit) => number): void {
    for (const [bucket, charged] of charges) {
      const next = target(bucket.unit);
      charges.set(bucket, next);
      if (this.buckets.get(bucket.name) !== bucket) continue;
      this.refill(bucket);
      bucket.level = Math.min(bucket.capacity, bucket.level + charged - next);
    }
  }

  /**
   * When `estimate`, queued behind `ahead`, would be admitted if nothing else
   * happened (no settle, release or abort; waiters ahead leave at their deadlines
   * unless admitted earlier, ties counted as leaving). Used to judge an at-once
   * WaitTimeoutError. `Infinity` when only a release could admit it.
   */
  admissionWithoutEvents(ahead: readonly { estimate: Estimate; deadline: number }[], estimate: Estimate): number {
    const levels = new Map<Bucket, number>();
    for (const bucket of this.buckets.values()) levels.set(bucket, this.levelOf(bucket));
    let t = this.now;
    let inFlight = this.inFlight;
    const limit = this.concurrency ?? Infinity;
    const admitAt = (cost: Estimate): number => {
      if (inFlight >= limit) return Infinity;
      let wait = 0;
      for (const [bucket, level] of levels) {
        const missing = costOn(bucket.unit, cost) - level;
        if (missing > 0) wait = Math.max(wait, (missing * bucket.windowMs) / bucket.limit);
      }
      return t + wait;
    };
    const moveTo = (next: number): void => {
      for (const [bucket, level] of levels) {
        levels.set(bucket, Math.min(bucket.capacity, level + ((next - t) * bucket.limit) / bucket.windowMs));
      }
      t = next;
    };
    for (const waiter of ahead) {
      const at = admitAt(waiter.estimate);
      if (at >= waiter.deadline) {
        if (waiter.deadline === Infinity) return Infinity;
        moveTo(Math.max(t, waiter.deadline));
        continue;
      }
      moveTo(at);
      for (const [bucket, level] of levels) levels.set(bucket, level - costOn(bucket.unit, waiter.estimate));
      inFlight++;
    }
    return admitAt(estimate);
  }
}

// ---------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------

export interface Request {
  readonly id: number;
  readonly estimate: Estimate;
  readonly arrivedAt: number;
  /** Virtual time of its `maxWaitMs` deadline; `Infinity` for none. */
  readonly deadline: number;
  readonly maxWaitMs: number | undefined;
  readonly controller: AbortController | undefined;
  /** When the model, on arrival, would admit it if nothing else happened. */
  readonly admissibleAt: number;
  aborted: boolean;
  status: "queued" | "admitted" | "rejected";
  error?: unknown;
  /** Virtual time it was refused, if it was. */
  rejectedAt?: number;
  reservation?: Reservation;
  charges?: Map<Bucket, number>;
  released: boolean;
}

type Outcome = { request: Request; reservation: Reservation } | { request: Request; error: unknown };

/** Flushes every pending promise callback without moving virtual time (setImmediate is not faked). */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function limiterOptions(config: Config): Limits {
  return {
    ...config.shorthands,
    ...(Object.keys(config.custom).length > 0 ? { limits: config.custom } : {}),
    ...(Object.keys(config.capacity).length > 0 ? { capacity: config.capacity } : {}),
    ...(config.concurrency === undefined ? {} : { concurrency: config.concurrency }),
  };
}

/** The config after `change`, and the LimitChanges that ask the limiter for it. */
function applyChange(config: Config, change: Change): { next: Config; changes: LimitChanges } {
  const next: Config = {
    shorthands: { ...config.shorthands },
    custom: { ...config.custom },
    capacity: { ...config.capacity },
    concurrency: config.concurrency,
  };
  switch (change.kind) {
    case "limit":
      // Removing a dimension also drops its burst size, which would otherwise name a missing dimension.
      if (change.value === null) {
        delete next.shorthands[change.name];
        delete next.capacity[change.name];
        return { next, changes: { [change.name]: null, capacity: { [change.name]: null } } };
      }
      next.shorthands[change.name] = change.value;
      return { next, changes: { [change.name]: change.value } };
    case "custom":
      if (change.spec === null) {
        delete next.custom[change.name];
        delete next.capacity[change.name];
        return { next, changes: { limits: { [change.name]: null }, capacity: { [change.name]: null } } };
      }
      next.custom[change.name] = change.spec;
      return { next, changes: { limits: { [change.name]: change.spec } } };
    case "capacity":
      if (change.value === null) delete next.capacity[change.name];
      else next.capacity[change.name] = change.value;
      return { next, changes: { capacity: { [change.name]: change.value } } };
    case "concurrency":
      next.concurrency = change.value ?? undefined;
      return { next, changes: { concurrency: change.value } };
  }
}

function initialFraction(initial: Scenario["initial"]): number {
  return initial === "full" ? 1 : initial === "empty" ? 0 : initial;
}

export class Harness {
  readonly model: Model;
  readonly limiter: Limiter;
  readonly requests: Request[] = [];
  /** Admitted requests in the order the limiter admitted them. */
  readonly admissions: Request[] = [];
  /** The model's FIFO of waiting requests. */
  private queue: Request[] = [];
  private readonly outcomes: Outcome[] = [];

  private constructor(
    readonly timers: ReturnType<typeof FakeTimers.install>,
    scenario: Scenario,
  ) {
    this.model = new Model(scenario.config, initialFraction(scenario.initial));
    this.limiter = new Limiter({
      ...limiterOptions(scenario.config),
      initial: scenario.initial,
      // The model's levels are exact arithmetic with calls arriving at once; arrival delays have their own property.
      arrivalDelayMs: 0,
      clock: { now: () => performance.now(), wallNow: () => Date.now() },
    });
  }

  /** Runs `body` with fake timers installed and a fresh limiter; always uninstalls. */
  static async with(scenario: Scenario, body: (harness: Harness) => Promise<void>): Promise<void> {
    const timers = FakeTimers.install({
      now: 0,
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
    try {
      const harness = new Harness(timers, scenario);
      harness.checkpoint();
      await body(harness);
    } finally {
      timers.uninstall();
    }
  }

  /** Runs every op of the scenario, then drains (liveness). */
  static run(scenario: Scenario, after?: (harness: Harness) => void): Promise<void> {
    return Harness.with(scenario, async (harness) => {
      for (const op of scenario.ops) await harness.apply(op);
      await harness.drain();
      after?.(harness);
    });
  }

  get now(): number {
    return this.model.now;
  }

  queued(): readonly Request[] {
    return this.queue;
  }

  async apply(op: Op): Promise<void> {
    switch (op.kind) {
      case "arrive":
        return void (await this.arrive(op));
      case "advance":
        return this.advance(op.ms);
      case "settle":
        return this.settle(this.pickAdmitted(op.pick), op.used);
      case "refund":
        return this.refund(this.pickAdmitted(op.pick));
      case "release":
        return this.release(this.pickAdmitted(op.pick));
      case "abort":
        return this.abort(this.pickAbortable(op.pick));
      case "setLimits":
        return this.setLimits(op.change);
      case "close":
        return this.close();
    }
  }

  private pick<T>(from: readonly T[], pick: number): T | undefined {
    return from.length === 0 ? undefined : from[pick % from.length];
  }

  /** A waiter when one can be aborted (the interesting case), else any request with a signal. */
  private pickAbortable(pick: number): Request | undefined {
    const abortable = this.requests.filter((r) => r.controller && !r.aborted);
    const waiting = abortable.filter((r) => r.status === "queued");
    return this.pick(waiting.length > 0 ? waiting : abortable, pick);
  }

  /** Admitted requests, released ones included (to exercise settle-after-release). */
  private pickAdmitted(pick: number): Request | undefined {
    return this.pick(this.admissions, pick);
  }

  async arrive({ estimate, abortable, maxWaitMs: wait }: Arrival): Promise<Request> {
    const admissibleAt = this.model.admissionWithoutEvents(this.queue, estimate);
    const maxWaitMs =
      typeof wait === "object"
        ? admissibleAt < Infinity
          ? Math.round(wait.patience * (admissibleAt - this.now))
          : undefined
        : wait;
    const deadline = maxWaitMs === undefined ? Infinity : this.now + maxWaitMs;
    const request: Request = {
      id: this.requests.length,
      estimate,
      arrivedAt: this.now,
      deadline,
      maxWaitMs,
      controller: abortable ? new AbortController() : undefined,
      admissibleAt,
      aborted: false,
      status: "queued",
      released: false,
    };
    this.requests.push(request);
    this.queue.push(request);
    const options = {
      ...(request.controller ? { signal: request.controller.signal } : {}),
      ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
    };
    this.limiter.acquire(estimate, options).then(
      (reservation) => this.outcomes.push({ request, reservation }),
      (error: unknown) => this.outcomes.push({ request, error }),
    );
    // A request that can never fit, or a closed limiter, is refused at once: one microtask later.
    await Promise.resolve();
    if (this.model.closed || this.model.tooLargeOn(estimate)) {
      check(
        this.outcomes.some((o) => o.request === request && "error" in o),
        () => `#${request.id} refused at once`,
      );
    }
    await this.settleDown();
    return request;
  }

  async settle(request: Request | undefined, used: Estimate): Promise<void> {
    if (!request) return;
    const reservation = request.reservation!;
    if (request.released) {
      expect(() => reservation.settle(used)).toThrow(ReservationReleasedError);
      return this.settleDown();
    }
    reservation.settle(used);
    this.model.recharge(request.charges!, (unit) => costOn(unit, used));
    return this.settleDown();
  }

  async refund(request: Request | undefined): Promise<void> {
    if (!request) return;
    const reservation = request.reservation!;
    if (request.released) {
      expect(() => reservation.refund()).toThrow(ReservationReleasedError);
      return this.settleDown();
    }
    reservation.refund();
    this.model.recharge(request.charges!, () => 0);
    return this.settleDown();
  }

  async release(request: Request | undefined): Promise<void> {
    if (!request) return;
    request.reservation!.release(); // idempotent: a second release changes nothing
    if (!request.released) {
      request.released = true;
      this.model.inFlight--;
    }
    return this.settleDown();
  }

  async abort(request: Request | undefined): Promise<void> {
    if (!request) return;
    const waiting = request.status === "queued";
    request.aborted = true;
    request.controller!.abort(new Error(`abort #${request.id}`));
    await this.settleDown();
    // A waiter leaves at once, with the signal's reason (an admitted request is not affected).
    if (waiting)
      check(
        request.error === request.controller!.signal.reason,
        () => `#${request.id} aborted while waiting: ${String(request.error)}`,
      );
  }

  async setLimits(change: Change): Promise<void> {
    const { next, changes } = applyChange(this.model.config, change);
    if (!shapesOf(next)) {
      // Bad config throws and changes nothing (the checkpoint compares every level).
      expect(() => this.limiter.setLimits(changes)).toThrow(TypeError);
      return this.settleDown();
    }
    this.limiter.setLimits(changes);
    this.model.reconfigure(next);
    return this.settleDown();
  }

  async close(): Promise<void> {
    this.limiter.close();
    this.model.closed = true;
    await this.settleDown();
    check(this.queue.length === 0, () => "close() rejects every waiter");
  }

  /** Moves virtual time forward by `ms`, stopping at (and just before) every instant the model expects an outcome. */
  async advance(ms: number): Promise<void> {
    const target = this.now + ms;
    while (this.now < target) {
      const next = Math.min(target, this.nextDue());
      if (next - 1 > this.now) await this.tickTo(next - 1);
      await this.tickTo(next);
    }
  }

  /** Releases everything and lets time pass until the queue is empty: every request admitted or refused. */
  async drain(): Promise<void> {
    // Each round admits or times out a waiter (or crosses a float boundary): a bound that only a stuck limiter reaches.
    const rounds = 4 * this.requests.length + 10;
    for (let round = 0; ; round++) {
      check(round < rounds, () => `drain stuck with ${this.queue.length} queued`);
      for (const request of this.admissions) if (!request.released) await this.release(request);
      if (this.queue.length === 0) break;
      const next = this.nextDue();
      check(next < Infinity, () => `liveness: #${this.queue[0]!.id} can be admitted some time`);
      await this.advance(next - this.now);
    }
    for (const request of this.requests)
      check(request.status !== "queued", () => `#${request.id} still queued after drain`);
    check(this.timers.countTimers() === 0, () => `${this.timers.countTimers()} timers left once idle`);
    let idle = false;
    void this.limiter.onIdle().then(() => (idle = true));
    await flush();
    check(idle, () => "onIdle() resolves once idle");
  }

  /** The next integer instant after now at which the model expects an admission or a deadline. */
  private nextDue(): number {
    let due = Infinity;
    const head = this.queue[0];
    if (head && this.model.slotFree()) due = this.now + this.model.waitFor(head.estimate);
    for (const request of this.queue) due = Math.min(due, request.deadline);
    return Math.max(this.now + 1, Math.ceil(due));
  }

  private async tickTo(t: number): Promise<void> {
    this.timers.tick(t - this.now);
    this.model.now = t;
    await this.settleDown();
  }

  /** After an op: fire timers due now, let promise callbacks run, replay outcomes, check. */
  private async settleDown(): Promise<void> {
    this.timers.tick(0);
    await flush();
    for (const outcome of this.outcomes.splice(0)) {
      if ("reservation" in outcome) this.admitted(outcome.request, outcome.reservation);
      else this.rejected(outcome.request, outcome.error);
    }
    this.checkpoint();
  }

  private admitted(request: Request, reservation: Reservation): void {
    const at = `#${request.id} admitted at ${this.now}`;
    // Invariant 2: only the head of the FIFO is ever admitted.
    check(this.queue[0] === request, () => `FIFO: ${at} while #${this.queue[0]?.id} is first`);
    // Invariant 1: every bucket covers the cost at this instant (debt included).
    const short = this.model.short(request.estimate, -1);
    check(short.length === 0, () => `never over: ${at}, short on ${short.join(", ")}`);
    check(this.model.slotFree(), () => `concurrency: ${at} with ${this.model.inFlight} in flight`);
    this.queue.shift();
    request.charges = this.model.take(request.estimate);
    request.status = "admitted";
    request.reservation = reservation;
    this.admissions.push(request);
  }

  private rejected(request: Request, error: unknown): void {
    const at = `#${request.id} rejected at ${this.now} with ${String(error)}`;
    const index = this.queue.indexOf(request);
    check(index >= 0, () => `${at}: was not waiting`);
    if (error instanceof RequestTooLargeError) {
      const bucket = this.model.buckets.get(error.dimension);
      check(
        bucket !== undefined &&
          costOn(bucket.unit, request.estimate) > bucket.capacity &&
          error.capacity === bucket.capacity,
        () => at,
      );
    } else if (error instanceof WaitTimeoutError) {
      check(request.maxWaitMs !== undefined, () => `${at}: no maxWaitMs`);
      // Refused on arrival on a predicted wait (judged by the property on at-once refusals), else at its deadline.
      const atOnce = this.now === request.arrivedAt && error.waitMs > error.maxWaitMs;
      check(
        atOnce || this.now === request.deadline,
        () => `${at}: neither at arrival on a wait over maxWaitMs nor at its deadline ${request.deadline}`,
      );
      check(error.waitMs >= error.maxWaitMs, () => `${at}: says it needed less than maxWaitMs`);
    } else if (error instanceof LimiterClosedError) {
      check(this.model.closed, () => `${at}: not closed`);
    } else {
      check(request.aborted && error === request.controller!.signal.reason, () => `${at}: not aborted`);
    }
    this.queue.splice(index, 1);
    request.status = "rejected";
    request.error = error;
    request.rejectedAt = this.now;
  }

  /** What must hold between steps, whatever happened before. */
  checkpoint(): void {
    const { model, limiter, timers } = this;
    const now = model.now;
    check(performance.now() === now, () => `virtual time ${performance.now()} vs model ${now}`);
    for (const request of this.queue) {
      const at = `#${request.id} still queued at ${now}`;
      // Invariant 4: one that can never fit does not wait.
      check(model.tooLargeOn(request.estimate) === undefined, () => `${at} though too large`);
      // Invariant 5: aborted and timed-out waiters leave at once.
      check(!request.aborted, () => `${at} after abort`);
      check(request.deadline > now, () => `${at} past its deadline ${request.deadline}`);
    }
    // Work conservation (and so: a cancelled waiter holds nothing): a head that surely fits is admitted now.
    const head = this.queue[0];
    if (head && model.slotFree())
      check(model.short(head.estimate, 1).length > 0, () => `#${head.id} fits at ${now} but waits`);

    // Invariant 3 via the levels: conserved accounting leaves model and limiter at the same level.
    const { queued, inFlight, concurrency, ...dimensions } = limiter.snapshot();
    check(queued === this.queue.length, () => `snapshot().queued ${queued}, model ${this.queue.length}`);
    check(inFlight === model.inFlight, () => `snapshot().inFlight ${inFlight}, model ${model.inFlight}`);
    const limit = model.concurrency;
    check(
      limit === undefined
        ? concurrency === undefined
        : concurrency?.limit === limit && concurrency.available === limit - model.inFlight,
      () =>
        `snapshot().concurrency ${JSON.stringify(concurrency)}, model limit ${limit} with ${model.inFlight} in flight`,
    );
    const names = Object.keys(dimensions);
    check(
      names.length === model.buckets.size,
      () => `dimensions ${names.join()} vs model ${[...model.buckets.keys()].join()}`,
    );
    for (const bucket of model.buckets.values()) {
      const seen = dimensions[bucket.name];
      check(
        seen !== undefined &&
          seen.limit === bucket.limit &&
          seen.windowMs === bucket.windowMs &&
          seen.capacity === bucket.capacity,
        () => `${bucket.name}: limiter ${JSON.stringify(seen)}, model ${JSON.stringify(bucket)}`,
      );
      const level = model.levelOf(bucket);
      check(
        Math.abs(seen.available - level) <= tolerance(bucket),
        () => `${bucket.name} at ${now}: limiter level ${seen.available}, model ${level}`,
      );
    }

    // Invariant 5: a head timer and a deadline timer at most, none when nothing waits; no stray abort listener.
    const count = timers.countTimers();
    check(count <= (this.queue.length === 0 ? 0 : 2), () => `${count} timers with ${this.queue.length} queued`);
    for (const request of this.requests) {
      if (!request.controller) continue;
      const listeners = getEventListeners(request.controller.signal, "abort").length;
      check(
        listeners === (request.status === "queued" ? 1 : 0),
        () => `${listeners} abort listeners on #${request.id} (${request.status})`,
      );
    }
  }
}
