/** What {@link plan} is asked about: a key's budgets and the shape of its calls. */
export interface PlanInput {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens (input + output) per minute. */
  tpm?: number;
  /** Input tokens per minute. */
  itpm?: number;
  /** Output tokens per minute. */
  otpm?: number;
  /** Requests per day. */
  rpd?: number;
  /** Tokens (input + output) per day. */
  tpd?: number;
  /** Calls in flight at once; needs `latencyMs` > 0 to bound the rate. */
  concurrency?: number;
  /** Prompt (input) tokens of a typical call, >= 0. */
  prompt: number;
  /** Output tokens a typical answer actually uses, > 0. */
  completion: number;
  /** The `max_tokens` each call sends, >= `completion`: what is reserved for the answer at admission. */
  maxTokens: number;
  /** How long a call is in flight, from admission to its settled usage, in ms (default 0). */
  latencyMs?: number;
  /** Calls arriving at once onto full buckets, to time their drain. */
  burst?: number;
}

/** One budget as the plan sees it. */
export interface DimensionPlan {
  /** The budget's option name (`rpm`, `tpm`, …, `concurrency`). */
  name: string;
  /** Units added per `windowMs` (for `concurrency`: the slots, freed once per latency). */
  limit: number;
  /** The refill window in ms (for `concurrency`: the latency). */
  windowMs: number;
  /** The bucket's size: its burst, here the limit, as a fresh key has it. */
  capacity: number;
  /** Units a call takes at admission. */
  reserved: number;
  /** Units a call keeps once it settles; the rest is refunded. */
  consumed: number;
  /** Calls per minute this budget alone sustains: its refill over `consumed`. */
  callsPerMinute: number;
  /** Share of `capacity` held by not-yet-refunded reservations at the sustainable rate, in [0, 1]. */
  heldShare: number;
  /** Calls a full bucket admits at once: `capacity / reserved`, rounded down. */
  callsAtOnce: number;
  /** With `burst`: ms until this budget admits the burst's last call. */
  drainMs?: number;
}

/** The answer of {@link plan}: a plain object, safe to `JSON.stringify`. */
export interface Plan {
  /** Every budget given, in option order, `concurrency` last. */
  dimensions: DimensionPlan[];
  /** The budget that sets the sustainable rate, and why in words. */
  binding: {
    /** The binding budget's option name, as in {@link DimensionPlan.name}. */
    dimension: string;
    /** Why it binds, in one sentence, with the rate every budget allows. */
    reason: string;
  };
  /** TPM / RPM: tokens a request can use before tokens, not requests, bind; with both `rpm` and `tpm` only. */
  crossover?: number;
  /** Calls per minute sustained indefinitely: the fewest any budget allows. */
  callsPerMinute: number;
  /** At that rate: calls in flight, and tokens they hold beyond what they will use. */
  inFlight: {
    /** Calls in flight on average: the rate times `latencyMs` (Little's law); fractional. */
    calls: number;
    /** Tokens those calls have reserved and will refund: `calls × (maxTokens - completion)`. */
    heldTokens: number;
  };
  /** What reserving `maxTokens` for answers of `completion` costs. */
  overReservation: {
    /** `maxTokens / completion`: how many times over the answer is reserved. */
    factor: number;
    /** The largest {@link DimensionPlan.heldShare}: burst room taken by reservations awaiting their refund. */
    heldShare: number;
    /** Calls full buckets admit at once. */
    callsAtOnce: number;
    /** The same with `maxTokens` = `completion`. */
    callsAtOnceExact: number;
    /** `1 - callsAtOnce / callsAtOnceExact`: the share of an instant burst lost to over-reserving. */
    burstShareLost: number;
  };
  /** With `burst`: the calls, the ms until the last is admitted, and the budget that takes longest. */
  burst?: {
    /** The `burst` asked about: calls arriving at once. */
    calls: number;
    /** Ms until the last of them is admitted: the longest {@link DimensionPlan.drainMs}. */
    drainMs: number;
    /** The budget that takes that long. */
    dimension: string;
  };
  /** One or two things to change, in plain words. */
  recommendations: string[];
}
