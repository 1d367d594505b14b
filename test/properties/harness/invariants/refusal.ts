/** What must hold whenever the limiter refuses a request, or a waiter should leave. */
import { LimiterClosedError, RequestTooLargeError, WaitTimeoutError } from "../../../../src/index.js";
import { check } from "../check.js";
import { costOn } from "../model.js";
import type { Outcome, Request, RunState } from "../state.js";

/**
 * A refusal has a cause the model agrees with: the request was waiting, and it is too large for a bucket's capacity,
 * timed out (on arrival on a predicted wait over `maxWaitMs`, else at its deadline), met a closed limiter, or was
 * aborted (refused with its signal's reason).
 */
export function rejectedForCause(run: RunState, request: Request, error: unknown): void {
  const { model } = run;
  const at = `#${request.id} rejected at ${model.now} with ${String(error)}`;
  check(run.queued().includes(request), () => `${at}: was not waiting`);
  if (error instanceof RequestTooLargeError) {
    const bucket = model.buckets.get(error.dimension);
    check(
      bucket !== undefined &&
        costOn(bucket.unit, request.estimate) > bucket.capacity &&
        error.capacity === bucket.capacity,
      () => at,
    );
  } else if (error instanceof WaitTimeoutError) {
    check(request.maxWaitMs !== undefined, () => `${at}: no maxWaitMs`);
    // Refused on arrival on a predicted wait (judged by the property on at-once refusals), else at its deadline.
    const atOnce = model.now === request.arrivedAt && error.waitMs > error.maxWaitMs;
    check(
      atOnce || model.now === request.deadline,
      () => `${at}: neither at arrival on a wait over maxWaitMs nor at its deadline ${request.deadline}`,
    );
    check(error.waitMs >= error.maxWaitMs, () => `${at}: says it needed less than maxWaitMs`);
  } else if (error instanceof LimiterClosedError) {
    check(model.closed, () => `${at}: not closed`);
  } else {
    check(request.aborted && error === request.controller!.signal.reason, () => `${at}: not aborted`);
  }
}

/**
 * Invariant 4: a request that can never fit, or one made to a closed limiter, is refused at once (one microtask
 * after `acquire`), given the outcomes observed so far.
 */
export function refusedAtOnce({ model }: RunState, request: Request, outcomes: readonly Outcome[]): void {
  if (model.closed || model.tooLargeOn(request.estimate)) {
    check(
      outcomes.some((o) => o.request === request && "error" in o),
      () => `#${request.id} refused at once`,
    );
  }
}

/** Invariant 5: a waiter whose signal aborts leaves at once, refused with the signal's reason. */
export function leftOnAbort(request: Request): void {
  check(
    request.error === request.controller!.signal.reason,
    () => `#${request.id} aborted while waiting: ${String(request.error)}`,
  );
}

/** `close()` rejects every waiter: nothing is left in the queue. */
export function closeRejectsEveryWaiter(run: RunState): void {
  check(run.queued().length === 0, () => "close() rejects every waiter");
}
