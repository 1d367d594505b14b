/**
 * The driver: runs a scenario's ops against a real Limiter under fake time and replays the limiter's outcomes
 * against the model, checking the invariants at every admission, refusal and step.
 *
 * Outcomes are observed through the promises `acquire` returns, in the order the
 * limiter settled them, and replayed against the model at the virtual time they
 * happened. Time only moves in steps that end on every instant where the model
 * expects something (an admission, a deadline), plus the millisecond before it, so
 * a late admission shows as a stuck head and an early one as a bucket that does
 * not cover the cost.
 */
import type { Clock as InstalledClock } from "@sinonjs/fake-timers";
import { expect } from "vitest";
import { Limiter, ReservationReleasedError, type Clock, type Estimate, type Reservation } from "../../../src/index.js";
import { flushPromises, installFakeTime } from "../../fake-time.js";
import { check } from "./check.js";
import { admittedFromHead, admittedWithinBudgets, admittedWithinConcurrency } from "./invariants/admission.js";
import { idleOnceDrained } from "./invariants/idle.js";
import { closeRejectsEveryWaiter, leftOnAbort, refusedAtOnce, rejectedForCause } from "./invariants/refusal.js";
import {
  accountingConserved,
  clockAgrees,
  noStrayTimersOrListeners,
  waitersMayWait,
  workConserved,
} from "./invariants/steps.js";
import { Model, costOn, initialFraction, settledCharge, shapesOf } from "./model.js";
import { applyChange, limiterOptions, type Arrival, type Change, type Op, type Scenario } from "./scenario.js";
import type { Outcome, Request, RunState } from "./state.js";

/** Runs scenarios against a real Limiter next to the model; see {@link Harness.run} and {@link Harness.with}. */
export class Harness implements RunState {
  readonly model: Model;
  readonly limiter: Limiter;
  readonly requests: Request[] = [];
  /** Admitted requests in the order the limiter admitted them. */
  readonly admissions: Request[] = [];
  /** The model's FIFO of waiting requests. */
  private queue: Request[] = [];
  private readonly outcomes: Outcome[] = [];
  /** What the limiter told `onWarning`: a capped usage, and only that here. */
  private readonly warnings: Error[] = [];

  private constructor(
    readonly timers: InstalledClock,
    clock: Clock,
    scenario: Scenario,
  ) {
    this.model = new Model(scenario.config, initialFraction(scenario.initial));
    this.limiter = new Limiter({
      ...limiterOptions(scenario.config),
      initial: scenario.initial,
      // The model's levels are exact arithmetic with calls arriving at once; arrival delays have their own property.
      arrivalDelayMs: 0,
      clock,
      // The efficiency watch warns too, of a low share used over a window; only the usage cap is a claim here.
      onWarning: (warning) => {
        if (warning.name !== "ReservationEfficiencyWarning") this.warnings.push(warning);
      },
    });
  }

  /** Runs `body` with fake timers installed and a fresh limiter; always uninstalls. */
  static with(scenario: Scenario, body: (harness: Harness) => Promise<void>): Promise<void> {
    // fast-check's interruptAfterTimeLimit stops waiting for a run but cannot stop it: the next run waits for it to
    // end (and uninstall its timers) instead of failing to install its own.
    const run = Harness.running
      .catch(() => {})
      .then(async () => {
        const { timers, clock } = installFakeTime({ wallStartMs: 0 });
        try {
          const harness = new Harness(timers, clock, scenario);
          harness.checkpoint();
          await body(harness);
        } finally {
          timers.uninstall();
        }
      });
    Harness.running = run;
    return run;
  }

  /** The latest run: fake timers are global, so runs take turns. */
  private static running: Promise<void> = Promise.resolve();

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
    refusedAtOnce(this, request, this.outcomes);
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
    const warned = this.warnings.length;
    reservation.settle(used);
    let capped = false;
    this.model.recharge(request.charges!, (unit, bucket) => {
      const charge = settledCharge(bucket, used, request.estimate);
      capped ||= charge < Math.ceil(costOn(unit, used));
      return charge;
    });
    // A capped usage is told, and only then.
    expect(this.warnings.length > warned, `settle(${JSON.stringify(used)}) warned`).toBe(capped);
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
    if (waiting) leftOnAbort(request);
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
    closeRejectsEveryWaiter(this);
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
    await idleOnceDrained(this);
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
    await flushPromises();
    for (const outcome of this.outcomes.splice(0)) {
      if ("reservation" in outcome) this.admitted(outcome.request, outcome.reservation);
      else this.rejected(outcome.request, outcome.error);
    }
    this.checkpoint();
  }

  private admitted(request: Request, reservation: Reservation): void {
    admittedFromHead(this, request);
    admittedWithinBudgets(this, request);
    admittedWithinConcurrency(this, request);
    this.queue.shift();
    request.charges = this.model.take(request.estimate);
    request.status = "admitted";
    request.reservation = reservation;
    this.admissions.push(request);
  }

  private rejected(request: Request, error: unknown): void {
    rejectedForCause(this, request, error);
    this.queue.splice(this.queue.indexOf(request), 1);
    request.status = "rejected";
    request.error = error;
    request.rejectedAt = this.now;
  }

  /** What must hold between steps, whatever happened before. */
  checkpoint(): void {
    clockAgrees(this);
    waitersMayWait(this);
    workConserved(this);
    accountingConserved(this);
    noStrayTimersOrListeners(this);
  }
}
