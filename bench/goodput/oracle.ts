/**
 * The oracle: a FIFO client that knows the provider's meters exactly and
 * sends each call, in arrival order, at the earliest instant the provider is
 * sure to accept it whatever arrival delay in [0, D] each call draws (D: the
 * workload's largest). No FIFO client safe for every such delay finishes
 * sooner; with D = 0 it sends each call the instant the provider would admit
 * it. It does not learn from responses when its calls arrived, so where
 * refunds bind, a client that does may finish a little sooner. Its arithmetic is written here, apart from llm-limiter's
 * and the
 * simulator's code, from the provider's documented behaviour: RPM charges 1
 * per call; TPM charges prompt + max_tokens at admission and gives back
 * max_tokens − answer when the call completes (a window gives back only
 * charges of the window still open); a bucket refills continuously; windows
 * are aligned to the provider's clock.
 */
import { latencyMs } from "../../examples/demo/workload.js";
import { arrivalDelays } from "./arrivals.js";
import { AZURE_SUB_WINDOW_MS, MINUTE_MS, azureAllowance } from "./metrics.js";
import { PHASE_MS } from "./simulate.js";
import type { Job, Workload } from "./workloads.js";

/** Float slack the simulator also allows when it compares a level with a cost. */
const TOLERANCE = 1e-6;

/** A call's charge to one dimension, and what it gives back when it completes. */
interface Charge {
  readonly cost: number;
  readonly refund: number;
  /** Milliseconds from arrival to completion. */
  readonly latencyMs: number;
}

/** One metered dimension as the provider keeps it, seen by a client that sends calls; times on the provider's clock. */
interface Meter {
  /** Milliseconds from `now` until `cost` is sure to fit; `Infinity` when only `nextChange` can make it fit. */
  waitMs(cost: number, now: number): number;
  /** A call sent at `now`. */
  send(charge: Charge, now: number): void;
  /** The next instant after `now` at which a call sent earlier gives room back at once. */
  nextChange(now: number): number;
}

/** An event in a bucket's history: a charge (negative) or a refund, and from when the client is sure of it. */
interface BucketEvent {
  readonly at: number;
  readonly amount: number;
  readonly sureFrom: number;
}

/**
 * A continuous bucket of `limit` per minute whose calls arrive up to `delayMs`
 * after they are sent. The bucket admits every arrival iff, over every span
 * [u, t] of arrival time, the net charge within it is at most
 * limit + rate × (t − u). For a call sent at s the worst span ends at s; in it
 * an earlier call counts its charge if it can arrive at or after u (sent at or
 * after u − D), less its refund only if that refund is sure to have come by s
 * (sent + D + latency ≤ s) and cannot come before u (sent + max(D, latency) ≥ u).
 * So the sure level at s is a bucket fed with each charge at sent + D and each
 * sure refund at sent + max(D, latency), read at s, less the charges sent in
 * (s − D, s]. Events up to s − D are final and folded into `settled`; the rest
 * are replayed on a copy at each reading. With D = 0 this is the provider's
 * own bucket.
 */
function bucket(limit: number, delayMs: number): Meter {
  const settled = { level: limit, at: 0 };
  /** Events not yet folded into `settled`, in time order (refunds before charges at one instant). */
  const pending: BucketEvent[] = [];
  const refill = (state: { level: number; at: number }, now: number): void => {
    state.level = Math.min(limit, state.level + ((now - state.at) * limit) / MINUTE_MS);
    state.at = now;
  };
  const apply = (state: { level: number; at: number }, event: BucketEvent): void => {
    refill(state, event.at);
    state.level = event.amount < 0 ? state.level + event.amount : Math.min(limit, state.level + event.amount);
  };
  const insert = (event: BucketEvent): void => {
    const after = (e: BucketEvent) => e.at > event.at || (e.at === event.at && event.amount > 0 && e.amount < 0);
    const index = pending.findIndex(after);
    pending.splice(index === -1 ? pending.length : index, 0, event);
  };
  /** The level the bucket is sure to hold at `now`, and whether it is full (so that only an event can raise it). */
  const sureLevel = (now: number): { level: number; full: boolean } => {
    while (pending[0] && pending[0].at <= now - delayMs) apply(settled, pending.shift()!);
    refill(settled, now - delayMs);
    const state = { ...settled };
    let recent = 0;
    for (const event of pending) {
      if (event.at > now) recent -= event.amount < 0 ? event.amount : 0;
      else if (event.sureFrom <= now) apply(state, event);
    }
    refill(state, now);
    return { level: state.level - recent, full: state.level >= limit };
  };
  return {
    waitMs(cost, now) {
      const { level, full } = sureLevel(now);
      if (cost - level <= TOLERANCE) return 0;
      return full ? Infinity : ((cost - level) * MINUTE_MS) / limit;
    },
    send({ cost, refund, latencyMs }, now) {
      insert({ at: now + delayMs, amount: -cost, sureFrom: now });
      if (refund > 0)
        insert({ at: now + Math.max(delayMs, latencyMs), amount: refund, sureFrom: now + delayMs + latencyMs });
    },
    nextChange(now) {
      // A refund becomes sure, or a charge leaves (s − D, s] and the bucket refills behind it again.
      const times = pending.map((e) => (e.amount > 0 ? e.sureFrom : e.at)).filter((t) => t > now);
      return Math.min(...times);
    },
  };
}

/** Fixed windows of `allowance` per `periodMs`; only without an arrival delay (the bench has no such workload). */
function windows(allowance: number, periodMs: number): Meter {
  let window = -1;
  let used = 0;
  /** Refunds still to come, soonest last. */
  const refunds: { at: number; amount: number; window: number }[] = [];
  const rollTo = (now: number): void => {
    const current = Math.floor(now / periodMs);
    if (current !== window) [window, used] = [current, 0];
  };
  /** Moves to `now`, giving back on the way the refunds due (those of a window still open). */
  const roll = (now: number): void => {
    while (refunds.length > 0 && refunds.at(-1)!.at <= now) {
      const done = refunds.pop()!;
      rollTo(done.at);
      if (done.window === window) used -= done.amount;
    }
    rollTo(now);
  };
  return {
    waitMs(cost, now) {
      roll(now);
      return used + cost - allowance <= TOLERANCE ? 0 : (window + 1) * periodMs - now;
    },
    send({ cost, refund, latencyMs }, now) {
      roll(now);
      used += cost;
      if (refund > 0) refunds.push({ at: now + latencyMs, amount: refund, window });
      refunds.sort((a, b) => b.at - a.at);
    },
    nextChange: () => refunds.at(-1)?.at ?? Infinity,
  };
}

function meterOf(limit: number, mode: Workload["provider"]["window"], delayMs: number): Meter {
  if (mode === "bucket") return bucket(limit, delayMs);
  if (delayMs > 0) throw new Error(`oracle: arrival delays are modelled on buckets only, not on "${mode}" windows`);
  if (mode === "azure") return windows(azureAllowance(limit), AZURE_SUB_WINDOW_MS);
  return windows(limit, MINUTE_MS);
}

/**
 * What the oracle achieves: its makespan, and when each of its calls was sent and admitted (in job order, relative to
 * the workload's start).
 */
export interface OracleRun {
  /** From the first arrival until its last call completes. */
  readonly makespanMs: number;
  readonly sentAt: readonly number[];
  readonly admittedAt: readonly number[];
}

/** Runs the oracle on a workload, its calls drawing the workload's arrival delays in the order sent. */
export function oracle(workload: Workload): OracleRun {
  const { quota, window } = workload.provider;
  const delayOf = arrivalDelays(workload);
  const maxDelayMs = workload.arrival?.maxMs ?? 0;
  const rpm = meterOf(quota.rpm, window, maxDelayMs);
  const tpm = meterOf(quota.tpm, window, maxDelayMs);
  const jobs: readonly Job[] = [...workload.jobs].sort((a, b) => a.at - b.at);
  let sent = Number.NEGATIVE_INFINITY;
  let lastDone = 0;
  const sentAt: number[] = [];
  const admittedAt = jobs.map((job, index) => {
    const tokens = job.prompt + job.maxTokens;
    let now = Math.max(PHASE_MS + job.at, sent);
    for (;;) {
      const wait = Math.max(rpm.waitMs(1, now), tpm.waitMs(tokens, now));
      if (wait === 0) break;
      now = Math.min(now + wait, rpm.nextChange(now), tpm.nextChange(now));
    }
    sent = now;
    sentAt.push(now - PHASE_MS);
    const latency = latencyMs(job);
    rpm.send({ cost: 1, refund: 0, latencyMs: latency }, now);
    tpm.send({ cost: tokens, refund: job.maxTokens - job.actual, latencyMs: latency }, now);
    const arrived = now + delayOf(index);
    lastDone = Math.max(lastDone, arrived + latency);
    return arrived - PHASE_MS;
  });
  return { makespanMs: lastDone - PHASE_MS - Math.min(...jobs.map((j) => j.at)), sentAt, admittedAt };
}
