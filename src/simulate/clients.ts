import { Limiter } from "../limiter.js";
import type { Estimate } from "../core/limits.js";
import { createProvider, type CallResult, type SimulatedProvider } from "../testing/provider.js";
import type { SimulationOutcome } from "./types.js";
import type { CheckedOptions } from "./validate.js";
import type { WorkloadCall } from "./workload.js";

/** What a client has done so far, read at every sample. */
export class Tally {
  sent = 0;
  rejected = 0;
  served = 0;
  /**
   * Calls that have arrived and are not at the provider: waiting for admission or sleeping on a
   * 429's `retry-after`. One entry a call (a workload may hold the same object twice).
   */
  readonly held = new Set<{ readonly call: WorkloadCall }>();

  get inFlight(): number {
    return this.sent - this.rejected - this.served;
  }
}

/** Sends workload calls to its own simulated key; `send` resolves with the outcome and never rejects. */
export interface Client {
  readonly tally: Tally;
  /** The client's own simulated key. */
  readonly provider: SimulatedProvider;
  send(call: WorkloadCall): Promise<SimulationOutcome>;
  /** Leaves nothing behind once every call has ended. */
  close(): Promise<void>;
}

/** A fresh simulated key with the run's budgets, latency and headers. */
function simulatedKey(options: CheckedOptions): SimulatedProvider {
  const { latencyMs } = options;
  return createProvider({
    ...options.budgets,
    dialect: options.dialect,
    window: "bucket",
    latencyMs: (c) => latencyMs({ prompt: c.prompt, maxTokens: c.maxTokens, completion: c.actual }),
  });
}

/** Sends one attempt and counts how it ended. */
async function attempt(provider: SimulatedProvider, tally: Tally, call: WorkloadCall): Promise<CallResult> {
  tally.sent++;
  const res = await provider.call({
    prompt: call.prompt,
    maxTokens: call.maxTokens,
    actual: call.completion,
    ...(call.model === undefined ? {} : { model: call.model }),
  });
  if (res.status === 429) tally.rejected++;
  else tally.served++;
  return res;
}

/** Times outcomes from the run's start (virtual `performance.now()`). */
function outcomeClock(): (call: WorkloadCall, attempts: number, error?: unknown) => SimulationOutcome {
  const startedAt = performance.now();
  return (call, attempts, error) => ({
    call,
    ok: error === undefined,
    endedAt: performance.now() - startedAt,
    attempts,
    ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
  });
}

/** The client as the README has it: every call goes through `limiter.run`, which retries 429s. */
export class LimitedClient implements Client {
  readonly tally = new Tally();
  readonly limiter: Limiter;
  readonly provider: SimulatedProvider;
  private readonly outcome = outcomeClock();
  private readonly split: boolean;

  constructor(
    private readonly options: CheckedOptions,
    onWarning: (warning: Error) => void,
  ) {
    this.provider = simulatedKey(options);
    const { budgets, dialect: provider, priorities } = options;
    this.limiter = new Limiter({ ...budgets, provider, onWarning, ...(priorities ? { priorities } : {}) });
    this.split = options.budgets.itpm !== undefined || options.budgets.otpm !== undefined;
  }

  close(): Promise<void> {
    return this.limiter.close();
  }

  async send(call: WorkloadCall): Promise<SimulationOutcome> {
    // What the provider charges at admission, and what the call turns out to use.
    const estimate: Estimate = this.split
      ? { input: call.prompt, output: call.maxTokens }
      : call.prompt + call.maxTokens;
    const used: Estimate = this.split ? { input: call.prompt, output: call.completion } : call.prompt + call.completion;
    let attempts = 0;
    const held = { call };
    this.tally.held.add(held);
    try {
      await this.limiter.run(
        estimate,
        async (reservation) => {
          attempts++;
          this.tally.held.delete(held);
          const res = await attempt(this.provider, this.tally, call);
          // Thrown the way the official SDKs throw a 429, so `run` syncs it and retries.
          if (res.status === 429) {
            this.tally.held.add(held);
            throw Object.assign(new Error("rate limited"), { status: 429, headers: res.headers, error: res.body });
          }
          reservation.sync(res.headers);
          return { value: res, used };
        },
        { retry: { attempts: this.options.retries }, priority: call.priority },
      );
      return this.outcome(call, attempts);
    } catch (error) {
      return this.outcome(call, attempts, error);
    } finally {
      this.tally.held.delete(held);
    }
  }
}

/** No limiter: fire on arrival; on a 429 wait the `retry-after` it names, then try again. */
export class NaiveClient implements Client {
  readonly tally = new Tally();
  readonly provider: SimulatedProvider;
  private readonly outcome = outcomeClock();

  constructor(private readonly options: CheckedOptions) {
    this.provider = simulatedKey(options);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async send(call: WorkloadCall): Promise<SimulationOutcome> {
    let res = await attempt(this.provider, this.tally, call);
    let attempts = 1;
    for (; res.status === 429 && attempts <= this.options.retries; attempts++) {
      const seconds = Number(res.headers["retry-after"]);
      // No hint: the call can never fit, and retrying cannot help.
      if (!Number.isFinite(seconds)) break;
      const held = { call };
      this.tally.held.add(held);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      this.tally.held.delete(held);
      res = await attempt(this.provider, this.tally, call);
    }
    return res.status === 200
      ? this.outcome(call, attempts)
      : this.outcome(call, attempts, new Error(`still 429 after ${attempts} attempts`));
  }
}

/** Sends every call at its arrival time; resolves with all outcomes, in workload order, once the client is closed. */
export async function replay(calls: readonly WorkloadCall[], client: Client): Promise<SimulationOutcome[]> {
  const outcomes = await Promise.all(
    calls.map(
      (call) => new Promise<SimulationOutcome>((resolve) => setTimeout(() => resolve(client.send(call)), call.at)),
    ),
  );
  await client.close();
  return outcomes;
}
