import type OpenAI from "openai";
import { Limiter } from "../../src/index.js";
import type { Estimate, Reservation, SyncOptions, Usage } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import type { Admitter } from "../../src/fetch/index.js";
import type { ProviderServer } from "../../src/testing/index.js";
import { openAIClient } from "../integration/helpers.js";

/** One admission as the limited fetch made it, and what it did with the reservation after. */
export interface Recorded {
  readonly estimate: Estimate;
  /** Every `settle`, in order. */
  readonly settled: Usage[];
  /** The status of every `sync`. */
  readonly synced: (number | undefined)[];
  released: boolean;
}

/** A limiter whose every admission through the fetch is recorded (the limiter still admits, settles, releases). */
export function recording(limiter: Limiter): { admitter: Admitter; calls: Recorded[] } {
  const calls: Recorded[] = [];
  const admitter: Admitter = {
    async acquire(estimate, options) {
      const reservation = await limiter.acquire(estimate, options);
      const record: Recorded = { estimate, settled: [], synced: [], released: false };
      calls.push(record);
      const recorded: Reservation = {
        estimate,
        get signal() {
          return reservation.signal;
        },
        get released() {
          return reservation.released;
        },
        sync(headers, syncOptions?: SyncOptions) {
          record.synced.push(syncOptions?.status);
          return reservation.sync(headers, syncOptions);
        },
        settle(used) {
          record.settled.push(used);
          reservation.settle(used);
        },
        refund: () => reservation.refund(),
        release() {
          record.released = true;
          reservation.release();
        },
      };
      return recorded;
    },
  };
  return { admitter, calls };
}

/** Waits until `check` holds, for state a response's background read settles (no timers: promise turns only). */
export async function eventually(check: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error("the condition did not hold");
}

/** A limiter (60k TPM, and `limits`) recording what its fetch does, and an OpenAI client on the simulator with it. */
export function recordedOpenAI(
  server: ProviderServer,
  limits: { concurrency?: number } = {},
): { limiter: Limiter; openai: OpenAI; calls: Recorded[] } {
  const limiter = new Limiter({ tpm: 60_000, ...limits, provider: "openai", initial: "full" });
  const { admitter, calls } = recording(limiter);
  return { limiter, openai: openAIClient(server, { fetch: limitedFetch(() => admitter) }), calls };
}
