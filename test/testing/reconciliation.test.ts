import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { CallRequest, SimulatedProvider } from "../../src/testing/index.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

/** Starts a call and reports whether it was admitted (decided synchronously), without waiting for it. */
function admitted(provider: SimulatedProvider, request: CallRequest): boolean {
  void provider.call(request);
  return provider.stats().calls.at(-1)?.status === 200;
}

describe("reserve at admission, reconcile at completion", () => {
  it("charges TPM prompt + max_tokens while the call runs and refunds max_tokens - actual when it completes", async () => {
    const provider = createProvider({ tpm: 10_000, clock: time.clock, latencyMs: 1_000 });
    const call = provider.call({ prompt: 1_000, maxTokens: 4_000, actual: 500 });

    // 5000 left while the reservation is held: a 6000-token call does not fit yet.
    const during = await provider.call({ prompt: 5_000, maxTokens: 1_000, actual: 1 });
    expect(during.status).toBe(429);
    expect(during.headers["x-ratelimit-remaining-tokens"]).toBe("5000");

    await time.at(1_000);
    // 5000 + 1000 ms of refill (166.67) + the 3500 refund.
    expect((await call).headers["x-ratelimit-remaining-tokens"]).toBe("8666");
    expect(provider.stats()).toMatchObject({ tokensCharged: 5_000, tokensUsed: 1_500 });
    expect(admitted(provider, { prompt: 5_000, maxTokens: 1_000, actual: 1 })).toBe(true);
  });

  it("never refunds a bucket above its limit", async () => {
    const provider = createProvider({ tpm: 6_000, clock: time.clock, latencyMs: 60_000 });
    const call = provider.call({ prompt: 0, maxTokens: 3_000, actual: 0 });
    await time.at(60_000);
    const result = await call;
    expect(result.headers["x-ratelimit-remaining-tokens"]).toBe("6000");
    expect(result.headers["x-ratelimit-reset-tokens"]).toBe("0s");
  });

  it("charges TPD like TPM", async () => {
    const provider = createProvider({ tpd: 10_000, clock: time.clock, latencyMs: 10 });
    const call = provider.call({ prompt: 1_000, maxTokens: 9_000, actual: 100 });
    const rejected = await provider.call({ prompt: 1, maxTokens: 1, actual: 1 });
    expect(rejected.body).toMatchObject({
      error: { type: "tokens", message: expect.stringContaining("tokens per day (TPD)") },
    });
    await time.at(10);
    await call;
    expect(admitted(provider, { prompt: 1_000, maxTokens: 7_000, actual: 1 })).toBe(true);
  });

  it("charges ITPM the prompt and OTPM max_tokens at admission under outputCharge 'estimate', reconciled at completion", async () => {
    const provider = createProvider({
      itpm: 50_000,
      otpm: 10_000,
      dialect: "anthropic",
      clock: time.clock,
      latencyMs: 1_000,
    });
    const call = provider.call({ prompt: 2_000, maxTokens: 4_000, actual: 1_000 });
    const during = await provider.call({ prompt: 10, maxTokens: 6_500, actual: 1 });
    expect(during.status).toBe(429);
    expect(provider.stats().rejectedBy.otpm).toBe(1);

    await time.at(1_000);
    const done = await call;
    // Output: 6000 + 166.67 refill + 3000 refund = 9166.67 -> 9000. Input: 48000 + 833.33 -> 49000.
    expect(done.headers["anthropic-ratelimit-output-tokens-remaining"]).toBe("9000");
    expect(done.headers["anthropic-ratelimit-input-tokens-remaining"]).toBe("49000");
  });

  it("charges OTPM the actual output at completion under outputCharge 'actual', going into debt that blocks later calls", async () => {
    const provider = createProvider({ otpm: 10_000, outputCharge: "actual", clock: time.clock, latencyMs: 1_000 });
    // max_tokens above the OTPM limit is fine: nothing is charged at admission.
    const call = provider.call({ prompt: 10, maxTokens: 20_000, actual: 15_000 });
    expect(admitted(provider, { prompt: 10, maxTokens: 20_000, actual: 1 })).toBe(true);
    await time.at(1_000);
    await call;
    // Both completed on a full bucket (nothing was charged at admission): 10000 - 15000 - 1 = -5001,
    // repaid after 5001 x 6 ms.
    const blocked = await provider.call({ prompt: 10, maxTokens: 1, actual: 1 });
    expect(blocked.status).toBe(429);
    expect(blocked.headers["retry-after-ms"]).toBe("30006");
    expect(provider.stats().calls.at(-1)?.rejectedBy).toBe("otpm");
    await time.at(1_000 + 30_006);
    expect(admitted(provider, { prompt: 10, maxTokens: 1, actual: 1 })).toBe(true);
  });

  it("under fixed windows, refunds into the charge's window and drops a refund whose window has passed", async () => {
    const provider = createProvider({ tpm: 10_000, window: "fixed", clock: time.clock, latencyMs: 2_000 });
    const early = provider.call({ prompt: 0, maxTokens: 8_000, actual: 1_000 });
    await time.at(2_000);
    expect((await early).headers["x-ratelimit-remaining-tokens"]).toBe("9000");

    await time.at(59_000);
    const late = provider.call({ prompt: 0, maxTokens: 8_000, actual: 1_000 });
    await time.at(61_000);
    expect((await late).headers["x-ratelimit-remaining-tokens"]).toBe("10000");
  });
});
