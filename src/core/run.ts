import type { RunResult } from "../options.js";
import type { AdmittedCall, Reservation } from "./reservation.js";
import { copyFailure, unreadable } from "./response-reading.js";
import { backoffMs, type RetryPolicy } from "./retry.js";

/** How one `run` call behaves. */
export interface RunPlan {
  readonly refundOnError: boolean;
  readonly retry: RetryPolicy | undefined;
  readonly signal: AbortSignal | undefined;
  /** The call's priority class (0 the most urgent) and tenant, which its retries keep. */
  readonly rank: number;
  readonly tenant: string | undefined;
}

type Fn<T> = (reservation: Reservation) => Promise<RunResult<T>> | RunResult<T>;

/**
 * Runs `fn` on an admitted reservation: settles the usage it reports and
 * releases. A 429 thrown by `fn` is synced into the limiter (pausing admission
 * as its hint says) and, within the retry policy, retried at the head of the
 * queue after the hint or a jittered backoff.
 */
export function runAdmitted<T>(first: AdmittedCall, fn: Fn<T>, plan: RunPlan): Promise<T> {
  if (plan.retry) return runRetrying(first, fn, plan, plan.retry);
  // Without retries, plain promise callbacks: an async function here costs a third of the throughput.
  first.deferSyncs();
  let result: Promise<RunResult<T>> | RunResult<T>;
  try {
    result = fn(first);
  } catch (error) {
    fail(first, error, plan, undefined);
    return Promise.reject(error);
  }
  return Promise.resolve(result).then(
    (outcome) => finish(first, outcome),
    (error: unknown) => {
      fail(first, error, plan, undefined);
      throw error;
    },
  );
}

async function runRetrying<T>(first: AdmittedCall, fn: Fn<T>, plan: RunPlan, retry: RetryPolicy): Promise<T> {
  let reservation = first;
  for (let attempt = 0; ; attempt++) {
    let outcome: RunResult<T>;
    reservation.deferSyncs();
    try {
      outcome = await fn(reservation);
    } catch (error) {
      const delay = fail(reservation, error, plan, { retry, attempt });
      if (delay === undefined) throw error;
      reservation = await reservation.host.readmit(
        reservation.estimate,
        plan.signal,
        reservation.host.now() + delay,
        plan.refundOnError,
        plan.rank,
        plan.tenant,
      );
      continue;
    }
    return finish(reservation, outcome);
  }
}

/**
 * Ends an attempt whose `fn` threw: syncs the failure's headers, refunds if
 * asked (and not retrying), releases. Returns the delay before the retry the
 * policy allows, or `undefined`: the error stands.
 */
function fail(
  reservation: AdmittedCall,
  error: unknown,
  plan: RunPlan,
  retrying: { retry: RetryPolicy; attempt: number } | undefined,
): number | undefined {
  // Never throws: the caller gets its own error, and the slot is freed whatever `error` does when read.
  let delay: number | undefined;
  try {
    delay = retryDelay(reservation, error, retrying?.retry, retrying?.attempt ?? 0);
    if (delay === undefined && plan.refundOnError && !reservation.released) reservation.refund();
  } catch (problem) {
    delay = undefined;
    warn(reservation, unreadable("run(): the thrown error", problem));
  } finally {
    end(reservation);
  }
  return delay;
}

/** Settles an attempt's reported usage, then applies its headers and releases. */
function finish<T>(reservation: AdmittedCall, outcome: RunResult<T>): T {
  try {
    return settle(reservation, outcome);
  } finally {
    end(reservation, true);
  }
}

/**
 * Applies the headers held back, tells admission of a success (it ends a probed pause), and releases, even when
 * applying them throws: the slot is never kept.
 */
function end(reservation: AdmittedCall, succeeded = false): void {
  try {
    reservation.flushSyncs();
    if (succeeded) reservation.host.succeeded(reservation);
  } catch (problem) {
    warn(reservation, unreadable("run(): a response", problem));
  } finally {
    reservation.release();
  }
}

/** Reports through `onWarning`; a throwing `onWarning` must not replace the caller's error either. */
function warn(reservation: AdmittedCall, warning: Error): void {
  try {
    reservation.host.warn(warning);
  } catch {
    // Nothing left to tell it to.
  }
}

/**
 * Syncs a failure's headers (its fields copied once, behind a guard), so that a 429's pause is in
 * force before the slot is freed; returns how long to wait before retrying it, or `undefined` for no retry.
 */
function retryDelay(
  reservation: AdmittedCall,
  error: unknown,
  retry: RetryPolicy | undefined,
  attempt: number,
): number | undefined {
  const parts = copyFailure(error);
  if (parts instanceof Error) {
    warn(reservation, parts);
    return undefined;
  }
  if (parts === undefined) return undefined;
  const { status, headers, body } = parts;
  // An error response (a 429, a 4xx) the provider does not bill: money and token quotas get their holds back.
  if (status !== undefined && status >= 400) reservation.unbilled();
  if (status !== undefined && headers) reservation.sync(headers, { status, body });
  if (!retry || attempt >= retry.attempts) return undefined;
  const failure = reservation.host.classify(parts);
  if (failure.kind !== "rate" || failure.shouldRetry === false) return undefined;
  return failure.retryAfterMs ?? backoffMs(retry, attempt);
}

function settle<T>(reservation: AdmittedCall, outcome: RunResult<T>): T {
  if (typeof outcome !== "object" || outcome === null || !("value" in outcome)) {
    reservation.host.warn(
      new TypeError(
        "run(): fn should resolve to { value, used? }; its result is returned as the value and the estimate stands",
      ),
    );
    return outcome as T;
  }
  if (outcome.used !== undefined) {
    try {
      reservation.settle(outcome.used);
    } catch (error) {
      reservation.host.warn(
        new TypeError(`run(): ignoring the reported usage, the estimate stands: ${(error as Error).message}`),
      );
    }
  }
  return outcome.value;
}
