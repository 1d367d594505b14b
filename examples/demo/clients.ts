import { Limiter } from "../../src/index.js";
import { createProvider, type CallResult, type SimulatedProvider } from "../../src/testing/index.js";
import { QUOTA, latencyMs, type Call } from "./workload.js";

/** How one call of the workload ended, in ms since the run started. */
export interface Outcome {
  readonly call: Call;
  readonly ok: boolean;
  readonly endedAt: number;
  /** Why it failed. */
  readonly error?: string;
}

/** Sends workload calls to its own simulated provider. */
export interface Client {
  readonly provider: SimulatedProvider;
  /** Resolves when the call has succeeded or been given up on; never rejects. */
  send(call: Call): Promise<Outcome>;
}

/** Retries after the first attempt, for both clients alike. */
const RETRIES = 10;

/** A fresh simulated key with the demo's quota: continuous buckets, OpenAI headers. */
function simulatedKey(): SimulatedProvider {
  return createProvider({ rpm: QUOTA.rpm, tpm: QUOTA.tpm, dialect: "openai", window: "bucket", latencyMs });
}

const request = (call: Call) => ({ prompt: call.prompt, maxTokens: call.maxTokens, actual: call.actual });

/** Times an outcome from the start of the run (virtual `performance.now()`). */
function outcomeClock(): (call: Call, error?: unknown) => Outcome {
  const startedAt = performance.now();
  return (call, error) => ({
    call,
    ok: error === undefined,
    endedAt: performance.now() - startedAt,
    ...(error === undefined ? {} : { error: error instanceof Error ? error.message : String(error) }),
  });
}

/** The client as the README has it: every call goes through `limiter.run`. */
export class LimitedClient implements Client {
  readonly provider = simulatedKey();
  readonly limiter = new Limiter({ rpm: QUOTA.rpm, tpm: QUOTA.tpm, provider: "openai" });
  /** Attempts the limiter let through to the provider, retries included. */
  admitted = 0;
  private readonly outcome = outcomeClock();

  async send(call: Call): Promise<Outcome> {
    try {
      await this.limiter.run(
        call.prompt + call.maxTokens, // what the provider charges at admission
        async (reservation) => {
          this.admitted++;
          const res = await this.provider.call(request(call));
          // Thrown the way the official SDKs throw a 429, so `run` syncs it and retries.
          if (res.status === 429)
            throw Object.assign(new Error("rate limited"), {
              status: 429,
              headers: res.headers,
              error: res.body.error,
            });
          reservation.sync(res.headers);
          return { value: res, used: res.usage.promptTokens + res.usage.completionTokens };
        },
        { retry: { attempts: RETRIES } },
      );
      return this.outcome(call);
    } catch (error) {
      return this.outcome(call, error);
    }
  }
}

/** No limiter: fire on arrival; on a 429 wait the `retry-after` it names, then try again. */
export class NaiveClient implements Client {
  readonly provider = simulatedKey();
  private readonly outcome = outcomeClock();

  async send(call: Call): Promise<Outcome> {
    let res: CallResult = await this.provider.call(request(call));
    let attempts = 1;
    for (; res.status === 429 && attempts <= RETRIES; attempts++) {
      const seconds = Number(res.headers["retry-after"]);
      // No hint: the call can never fit, and retrying cannot help.
      if (!Number.isFinite(seconds)) break;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      res = await this.provider.call(request(call));
    }
    return res.status === 200
      ? this.outcome(call)
      : this.outcome(call, new Error(`still 429 after ${attempts} attempts`));
  }
}

/** Sends every call at its arrival time; resolves with all outcomes, in workload order. */
export function replay(calls: readonly Call[], client: Client): Promise<Outcome[]> {
  return Promise.all(
    calls.map((call) => new Promise<Outcome>((resolve) => setTimeout(() => resolve(client.send(call)), call.at))),
  );
}
