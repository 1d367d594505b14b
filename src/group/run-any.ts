import type { Clock } from "../core/clock.js";
import type { Estimate } from "../core/limits.js";
import { checkTenant, type PriorityClasses } from "../core/priorities.js";
import type { Reservation } from "../core/reservation.js";
import { backoffMs, retryPolicy } from "../core/retry.js";
import { untilDayTurns } from "../core/day-quota.js";
import { classifyFailure } from "../headers/failures.js";
import type { ProviderName } from "../headers/types.js";
import type { Limiter } from "../limiter.js";
import type { RunOptions, RunResult } from "../options.js";

/** What `runAny` asks of a member: a lower bound on the wait now, in ms, for a call in class `rank` and `tenant`. */
export interface WaitPredictor {
  predictedWaitMs(estimate: Estimate, rank: number, tenant: string | undefined): number;
}

/** One of the members `runAny` may run on. */
export interface Candidate {
  readonly name: string;
  readonly limiter: Limiter;
  readonly admission: WaitPredictor;
}

/** What `runAny` reads of its group. */
export interface RunAnyContext {
  readonly clock: Clock;
  readonly provider: ProviderName | undefined;
  /** A 429's retry hint longer than this moves the retry to another candidate. */
  readonly moveAfterMs: number;
  /** The members' priority classes: a call's wait is predicted in its own. */
  readonly classes: PriorityClasses;
}

type Fn<T> = (reservation: Reservation, name: string) => Promise<RunResult<T>> | RunResult<T>;

/**
 * Runs `fn` on the candidate predicted to admit `estimate` soonest (the first
 * listed among equals). Each attempt is one plain `run` on its member, so its
 * 429 is synced there (pausing it as the hint says) before the retry is placed.
 */
export async function runOnSoonest<T>(
  candidates: readonly Candidate[],
  estimate: Estimate,
  fn: Fn<T>,
  options: RunOptions | undefined,
  context: RunAnyContext,
): Promise<T> {
  const retry = retryPolicy(options?.retry);
  const call: CallClass = { rank: context.classes.rankOf(options?.priority), tenant: checkTenant(options?.tenant) };
  const once: RunOptions | undefined = options && { ...options, retry: undefined };
  /** Candidates a long retry hint moved away from, until every one has been. */
  const avoided = new Set<Candidate>();
  let next: Candidate | undefined;
  for (let attempt = 0; ; attempt++) {
    const candidate = next ?? soonest(candidates, avoided, estimate, call);
    next = undefined;
    try {
      return await candidate.limiter.run(estimate, (reservation) => fn(reservation, candidate.name), once);
    } catch (error) {
      if (!retry || attempt >= retry.attempts) throw error;
      const wallNow = context.clock.wallNow();
      const failure = untilDayTurns(classifyFailure(error, { wallNow, provider: context.provider }), wallNow);
      if (failure.kind !== "rate" || failure.shouldRetry === false) throw error;
      const hint = failure.retryAfterMs;
      if (hint !== undefined && hint > context.moveAfterMs && candidates.length > 1) {
        avoided.add(candidate);
        if (avoided.size === candidates.length) avoided.clear();
        continue;
      }
      await sleep(hint ?? backoffMs(retry, attempt), options?.signal);
      next = candidate;
    }
  }
}

/** Where the call waits: its priority class (0 the most urgent) and tenant. */
interface CallClass {
  readonly rank: number;
  readonly tenant: string | undefined;
}

/** The candidate with the least predicted wait for `estimate` in `call`'s class, leaving out `avoided`. */
function soonest(
  candidates: readonly Candidate[],
  avoided: ReadonlySet<Candidate>,
  estimate: Estimate,
  call: CallClass,
): Candidate {
  let best: Candidate | undefined;
  let bestWait = Infinity;
  for (const candidate of candidates) {
    if (avoided.has(candidate)) continue;
    const wait = candidate.admission.predictedWaitMs(estimate, call.rank, call.tenant);
    if (best === undefined || wait < bestWait) {
      best = candidate;
      bestWait = wait;
    }
  }
  return best!;
}

/** Waits `ms` (on the timers fake time replaces), or rejects with the signal's reason. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
