/**
 * The oracle: a FIFO client that knows the provider's meters exactly and
 * admits each call, in arrival order, at the earliest instant the provider
 * would accept it. No FIFO client finishes sooner. Its arithmetic is written
 * here, apart from llm-limiter's and the simulator's code, from the provider's
 * documented behaviour: RPM charges 1 per call; TPM charges prompt + max_tokens
 * at admission and gives back max_tokens − answer when the call completes
 * (a window gives back only charges of the window still open); a bucket
 * refills continuously; windows are aligned to the provider's clock.
 */
import { latencyMs } from "../../examples/demo/workload.js";
import { AZURE_SUB_WINDOW_MS, MINUTE_MS, azureAllowance } from "./metrics.js";
import { PHASE_MS } from "./simulate.js";
import type { Job, Workload } from "./workloads.js";

/** Float slack the simulator also allows when it compares a level with a cost. */
const TOLERANCE = 1e-6;

/** One metered dimension as the provider keeps it; times on the provider's clock. */
interface Quota {
  /** Milliseconds from `now` until `cost` fits, refunds to come not counted. */
  waitMs(cost: number, now: number): number;
  /** Charges `cost` at `now`; returns what identifies the charge for a refund. */
  take(cost: number, now: number): number;
  refund(amount: number, now: number, charge: number): void;
}

function bucket(limit: number): Quota {
  let level = limit;
  let at = 0;
  const refill = (now: number): void => {
    level = Math.min(limit, level + ((now - at) * limit) / MINUTE_MS);
    at = now;
  };
  return {
    waitMs(cost, now) {
      refill(now);
      return cost - level <= TOLERANCE ? 0 : ((cost - level) * MINUTE_MS) / limit;
    },
    take(cost, now) {
      refill(now);
      level -= cost;
      return 0;
    },
    refund(amount, now) {
      refill(now);
      level = Math.min(limit, level + amount);
    },
  };
}

function windows(allowance: number, periodMs: number): Quota {
  let window = -1;
  let used = 0;
  const roll = (now: number): void => {
    const current = Math.floor(now / periodMs);
    if (current !== window) [window, used] = [current, 0];
  };
  return {
    waitMs(cost, now) {
      roll(now);
      return used + cost - allowance <= TOLERANCE ? 0 : (window + 1) * periodMs - now;
    },
    take(cost, now) {
      roll(now);
      used += cost;
      return window;
    },
    refund(amount, now, charge) {
      roll(now);
      if (charge === window) used -= amount;
    },
  };
}

function quotaOf(limit: number, mode: Workload["provider"]["window"]): Quota {
  if (mode === "bucket") return bucket(limit);
  if (mode === "azure") return windows(azureAllowance(limit), AZURE_SUB_WINDOW_MS);
  return windows(limit, MINUTE_MS);
}

/** The oracle's makespan: from the first arrival until its last call completes. */
export function oracleMakespanMs(workload: Workload): number {
  const { quota, window } = workload.provider;
  const rpm = quotaOf(quota.rpm, window);
  const tpm = quotaOf(quota.tpm, window);
  /** Refunds still to come, soonest last. */
  const completions: { at: number; amount: number; charge: number }[] = [];
  const settleUntil = (now: number): void => {
    while (completions.length > 0 && completions[completions.length - 1]!.at <= now) {
      const done = completions.pop()!;
      tpm.refund(done.amount, done.at, done.charge);
    }
  };
  const jobs: readonly Job[] = [...workload.jobs].sort((a, b) => a.at - b.at);
  let admitted = Number.NEGATIVE_INFINITY;
  let lastDone = 0;
  for (const job of jobs) {
    const tokens = job.prompt + job.maxTokens;
    let now = Math.max(PHASE_MS + job.at, admitted);
    for (;;) {
      settleUntil(now);
      const wait = Math.max(rpm.waitMs(1, now), tpm.waitMs(tokens, now));
      if (wait === 0) break;
      const nextRefund = completions.at(-1)?.at ?? Number.POSITIVE_INFINITY;
      now = Math.min(now + wait, nextRefund);
    }
    admitted = now;
    rpm.take(1, now);
    const charge = tpm.take(tokens, now);
    const done = now + latencyMs(job);
    completions.push({ at: done, amount: job.maxTokens - job.actual, charge });
    completions.sort((a, b) => b.at - a.at);
    lastDone = Math.max(lastDone, done);
  }
  return lastDone - PHASE_MS - Math.min(...jobs.map((j) => j.at));
}
