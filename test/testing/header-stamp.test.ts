import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { HeaderStamp } from "../../src/testing/options.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

/** 1000 + 4000 reserved of 10,000 TPM, 500 used, answered after 1 s. */
const call = { prompt: 1_000, maxTokens: 4_000, actual: 500 };

function provider(stampHeaders?: HeaderStamp) {
  return createProvider({
    tpm: 10_000,
    latencyMs: 1_000,
    clock: time.clock,
    ...(stampHeaders ? { stampHeaders } : {}),
  });
}

describe("stampHeaders: when an admitted call's rate-limit headers are stamped", () => {
  it("at completion by default: after the reservation is reconciled to the actual usage", async () => {
    const pending = provider().call(call);
    await time.at(1_000);
    // 5000 left + 1 s of refill (166.67) + the 3500 refund.
    expect((await pending).headers).toMatchObject({
      "x-ratelimit-remaining-tokens": "8666",
      date: new Date(EPOCH_MS + 1_000).toUTCString(),
    });
  });

  it("at admission: the meters right after the call was charged, sent with the response", async () => {
    const pending = provider("admission").call(call);
    await time.at(1_000);
    expect((await pending).headers).toMatchObject({
      "x-ratelimit-remaining-tokens": "5000",
      // 5000 missing at 10,000/min: full 30 s after admission, stale by the latency once sent.
      "x-ratelimit-reset-tokens": "30s",
      date: new Date(EPOCH_MS + 1_000).toUTCString(),
    });
  });

  it("at admission reads the meters when the call arrives, not when it was sent", async () => {
    const sim = createProvider({
      rpm: 60,
      arrivalDelayMs: 500,
      latencyMs: 500,
      stampHeaders: "admission",
      dialect: "anthropic",
      clock: time.clock,
    });
    const pending = sim.call(call);
    await time.at(1_000);
    // Charged at 500 ms: one request missing, full 1 s later (an RFC 3339 reset, rounded up to the second).
    expect((await pending).headers).toMatchObject({
      "anthropic-ratelimit-requests-remaining": "59",
      "anthropic-ratelimit-requests-reset": new Date(EPOCH_MS + 2_000).toISOString().replace(".000Z", "Z"),
    });
  });

  it.each<HeaderStamp>(["admission", "completion"])("leaves a 429 stamped when it is decided (%s)", async (stamp) => {
    const sim = provider(stamp);
    void sim.call(call);
    const rejected = await sim.call({ prompt: 6_000, maxTokens: 1, actual: 1 });
    expect(rejected.status).toBe(429);
    expect(rejected.headers["x-ratelimit-remaining-tokens"]).toBe("5000");
  });

  it.each<HeaderStamp>(["admission", "completion"])(
    "sends a stream's head, and its headers, at admission (%s)",
    async (stamp) => {
      const sim = createProvider({
        tpm: 10_000,
        latencyMs: 1_000,
        answerTokens: () => 1,
        stampHeaders: stamp,
        clock: time.clock,
      });
      const server = await sim.listen();
      try {
        const body = JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 4_000,
          stream: true,
        });
        const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body });
        expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe(String(10_000 - 7 - 4_000));
        await time.at(1_000);
        await res.text();
      } finally {
        await server.close();
      }
    },
  );
});
