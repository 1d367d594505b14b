import { describe, expect, it } from "vitest";
import { Limiter } from "../src/index.js";
import { createProvider, seededRandom, type SimulatedProvider } from "../src/testing/index.js";
import { burst } from "./burst.js";
import { ARRIVAL_DELAY_MS } from "./defaults.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

/** OpenAI's quick start: 100-token prompts, max_tokens 100, answers of 60. */
const QUICK_START = { prompt: 100, maxTokens: 100, actual: 60 };

/**
 * A burst of quick-start calls, each reaching the provider `delayMs()` after admission: its 429s and its last
 * admission.
 */
async function quickStartBurst(
  provider: SimulatedProvider,
  limiter: Limiter,
  calls: number,
  delayMs: () => number,
): Promise<{ rejected: number; lastAdmittedMs: number }> {
  const { rejected, admittedAt } = await burst(time.timers, provider, limiter, calls, { call: QUICK_START, delayMs });
  return { rejected, lastAdmittedMs: Math.max(...admittedAt) };
}

describe("start-up on default options", () => {
  it.each([0, 250, 500])(
    "300 calls at once, rpm 120 and tpm 40,000, each reaching the provider up to %i ms after admission: no 429",
    async (maxDelayMs) => {
      const provider = createProvider({ rpm: 120, tpm: 40_000, latencyMs: 800 });
      const random = seededRandom(maxDelayMs + 1);
      const { rejected, lastAdmittedMs } = await quickStartBurst(
        provider,
        new Limiter({ rpm: 120, tpm: 40_000 }),
        300,
        () => random() * maxDelayMs,
      );
      expect(rejected).toBe(0);
      // 120 at once, then 2 a second: the 300th at 90 s. The refill after a full bucket starts up to an arrival delay
      // late: for the burst, and for the calls paced through the refill while the probe holds the burst back.
      expect(lastAdmittedMs).toBeLessThanOrEqual(90_000 + 2 * ARRIVAL_DELAY_MS);
    },
  );

  it("a fresh key and slow answers (4 s): the probe holds the burst back, not the rate", async () => {
    const provider = createProvider({ rpm: 120, tpm: 40_000, latencyMs: 4_000 });
    const { rejected, lastAdmittedMs } = await quickStartBurst(
      provider,
      new Limiter({ rpm: 120, tpm: 40_000 }),
      300,
      () => 0,
    );
    expect(rejected).toBe(0);
    // While the burst waits for the first answer the full bucket's refill is admitted: the 300th still goes at 90 s
    // and the arrival delays (not the 4 s latency).
    expect(lastAdmittedMs).toBeLessThanOrEqual(90_000 + 2 * ARRIVAL_DELAY_MS);
  });

  it("a restart while the key is drained (a rolling deploy) costs a handful of 429s before the first response tells", async () => {
    const provider = createProvider({ rpm: 120, tpm: 40_000, latencyMs: 800 });
    const old = new Limiter({ rpm: 120, tpm: 40_000, initial: "full" });
    const drained = Promise.all(
      Array.from({ length: 120 }, () =>
        old.acquire(0).then((r) => provider.call({ prompt: 100, maxTokens: 100 }).finally(() => r.release())),
      ),
    );
    await time.timers.tickAsync(1_000);
    expect((await drained).every((res) => res.status === 200)).toBe(true);
    // The new process knows nothing of the old one's calls: its buckets start full.
    const { rejected } = await quickStartBurst(provider, new Limiter({ rpm: 120, tpm: 40_000 }), 120, () => 0);
    expect(rejected).toBeLessThanOrEqual(4);
  });

  it('a caller that says the key is fresh (`initial: "full"`) skips the probe: the whole burst at once', async () => {
    const limiter = new Limiter({ rpm: 100, initial: "full" });
    const held = await Promise.all(Array.from({ length: 100 }, () => limiter.acquire(0)));
    expect(limiter.snapshot().inFlight).toBe(100);
    for (const r of held) r.release();
  });
});
