import type { Clock as FakeTimers } from "@sinonjs/fake-timers";
import type { Limiter } from "../src/index.js";
import type { CallRequest, SimulatedProvider } from "../src/testing/index.js";

/** How a burst went, as the provider saw it. */
export interface BurstOutcome {
  /** 429s the provider sent. */
  readonly rejected: number;
  /** 429s after the first five successful responses. */
  readonly rejectedLate: number;
  /** When each served call's successful attempt was admitted, ms from the start. */
  readonly admittedAt: readonly number[];
}

/** What each call of a burst looks like. */
export interface BurstShape {
  /** Prompt, max_tokens and the answer's length; the estimate is prompt + max_tokens. */
  readonly call: Required<Pick<CallRequest, "prompt" | "maxTokens" | "actual">>;
  /** Milliseconds from admission until the call reaches the provider. Default: at once. */
  readonly delayMs?: () => number;
}

/**
 * `calls` requests at once through `limiter` against the simulator in
 * process, as the README's quick start makes them: sync each response's
 * headers, settle its usage, retry 429s as the limiter is told. Moves virtual
 * time until every call is served (half an hour at most).
 */
export async function burst(
  timers: FakeTimers,
  provider: SimulatedProvider,
  limiter: Limiter,
  calls: number,
  shape: BurstShape,
): Promise<BurstOutcome> {
  const { call, delayMs } = shape;
  const start = performance.now();
  const admittedAt: number[] = [];
  let rejected = 0;
  let rejectedLate = 0;
  const done = Promise.all(
    Array.from({ length: calls }, () =>
      limiter.run(
        call.prompt + call.maxTokens,
        async (reservation) => {
          const at = performance.now() - start;
          const delay = delayMs?.() ?? 0;
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          const res = await provider.call(call);
          if (res.status === 429) {
            rejected++;
            if (admittedAt.length >= 5) rejectedLate++;
            throw Object.assign(new Error("429"), { status: 429, headers: res.headers, error: res.body.error });
          }
          admittedAt.push(at);
          reservation.sync(res.headers);
          return { value: res, used: res.usage.promptTokens + res.usage.completionTokens };
        },
        { retry: { attempts: 20 } },
      ),
    ),
  );
  await timers.tickAsync(30 * 60_000);
  await done;
  return { rejected, rejectedLate, admittedAt };
}
