/** What must hold between steps, whatever happened before: checked after every op and every tick of virtual time. */
import { getEventListeners } from "node:events";
import { check } from "../check.js";
import { tolerance } from "../model.js";
import type { RunState } from "../state.js";

/** The fake timers' `performance.now()` stands at the model's virtual time. */
export function clockAgrees({ model }: RunState): void {
  check(performance.now() === model.now, () => `virtual time ${performance.now()} vs model ${model.now}`);
}

/**
 * Invariants 4 and 5 on the queue: no waiter is one that can never fit, was aborted, or is past its deadline
 * (those leave at once).
 */
export function waitersMayWait(run: RunState): void {
  const { model } = run;
  for (const request of run.queued()) {
    const at = `#${request.id} still queued at ${model.now}`;
    check(model.tooLargeOn(request.estimate) === undefined, () => `${at} though too large`);
    check(!request.aborted, () => `${at} after abort`);
    check(request.deadline > model.now, () => `${at} past its deadline ${request.deadline}`);
  }
}

/** Work conservation (and so: a cancelled waiter holds nothing): a head that surely fits is admitted now. */
export function workConserved(run: RunState): void {
  const { model } = run;
  const head = run.queued()[0];
  if (head && model.slotFree())
    check(model.short(head.estimate, 1).length > 0, () => `#${head.id} fits at ${model.now} but waits`);
}

/**
 * Invariant 3 via the levels: conserved accounting leaves model and limiter at the same level. The limiter's
 * snapshot has the model's queue length, calls in flight, concurrency slots and dimensions, each with the model's
 * limit, window, capacity and (within tolerance) level.
 */
export function accountingConserved(run: RunState): void {
  const { model, limiter } = run;
  const queue = run.queued();
  const now = model.now;
  const { queued, inFlight, concurrency, dimensions } = limiter.snapshot();
  check(queued === queue.length, () => `snapshot().queued ${queued}, model ${queue.length}`);
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
    // The snapshot floors levels: the model's, floored, on either side of its tolerance.
    const level = model.levelOf(bucket);
    const slack = tolerance(bucket);
    check(
      seen.available === Math.floor(level - slack) || seen.available === Math.floor(level + slack),
      () => `${bucket.name} at ${now}: limiter level ${seen.available}, model ${level} (floored)`,
    );
  }
}

/**
 * Invariant 5 on what waiters hold: a head timer and a deadline timer at most, none when nothing waits; one abort
 * listener on a waiting request's signal, none once it is admitted or refused.
 */
export function noStrayTimersOrListeners(run: RunState): void {
  const queue = run.queued();
  const count = run.timers.countTimers();
  check(count <= (queue.length === 0 ? 0 : 2), () => `${count} timers with ${queue.length} queued`);
  for (const request of run.requests) {
    if (!request.controller) continue;
    const listeners = getEventListeners(request.controller.signal, "abort").length;
    check(
      listeners === (request.status === "queued" ? 1 : 0),
      () => `${listeners} abort listeners on #${request.id} (${request.status})`,
    );
  }
}
