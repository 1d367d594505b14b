import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import type { CallResult, SimulatedProvider } from "../../src/testing/index.js";
import type { ArrivalInput } from "../../src/testing/options.js";
import { EPOCH_MS, useFakeTime } from "../fake-time.js";

const time = useFakeTime({ fake: "timeouts", wallStartMs: EPOCH_MS });

const oneRequest = { prompt: 10, maxTokens: 20, actual: 5 };

function fire(provider: SimulatedProvider, count: number): Promise<CallResult[]> {
  return Promise.all(Array.from({ length: count }, () => provider.call(oneRequest)));
}

describe("arrivalDelayMs: the time from the client's send to the provider's admission", () => {
  it("checks and charges the meters when the call arrives, not when it is sent", async () => {
    const provider = createProvider({ rpm: 1, arrivalDelayMs: 250, clock: time.clock });
    const call = provider.call(oneRequest);
    await time.at(249);
    expect(provider.stats().calls).toEqual([]);
    await time.at(250);
    expect(provider.stats().calls).toMatchObject([{ sentAt: 0, receivedAt: 250, status: 200 }]);
    expect((await call).headers["x-ratelimit-remaining-requests"]).toBe("0");
  });

  it("draws a delay per call from the call's index and numbers; calls sent together arrive spread out", async () => {
    const seen: ArrivalInput[] = [];
    const delays = [300, 100, 200];
    const provider = createProvider({
      rpm: 2,
      clock: time.clock,
      arrivalDelayMs: (call) => {
        seen.push(call);
        return delays[call.index] ?? 0;
      },
    });
    const results = Promise.all([0, 1, 2].map((i) => provider.call({ prompt: i, maxTokens: 1, actual: 1 })));
    expect(seen).toEqual([0, 1, 2].map((i) => ({ index: i, prompt: i, maxTokens: 1, stream: false })));
    await time.at(300);
    // Arrival order 1, 2, 0: the call sent first arrives last and finds the bucket empty.
    expect(provider.stats().calls.map((c) => [c.prompt, c.receivedAt, c.status])).toEqual([
      [1, 100, 200],
      [2, 200, 200],
      [0, 300, 429],
    ]);
    expect((await results).map((r) => r.status)).toEqual([429, 200, 200]);
  });

  it("keeps the provider's bucket full, its refill lost, until a late burst arrives", async () => {
    // 100 requests at 100/min: a client that drained the bucket at 0 expects one back at 600 ms.
    const provider = createProvider({
      rpm: 100,
      arrivalDelayMs: (call) => (call.index < 100 ? 400 : 0),
      clock: time.clock,
    });
    const burst = fire(provider, 100);
    await time.at(600);
    // The burst was charged at 400 ms: 200 ms of refill is a third of a request.
    expect((await provider.call(oneRequest)).status).toBe(429);
    await time.at(1_000);
    expect((await provider.call(oneRequest)).status).toBe(200);
    expect((await burst).every((r) => r.status === 200)).toBe(true);
  });

  it("keeps sends in order when every call draws the same delay", async () => {
    const provider = createProvider({ rpm: 3, arrivalDelayMs: 100, clock: time.clock });
    const results = Promise.all([0, 1, 2, 3].map((prompt) => provider.call({ prompt, maxTokens: 1, actual: 1 })));
    await time.at(100);
    expect(provider.stats().calls.map((c) => c.prompt)).toEqual([0, 1, 2, 3]);
    expect((await results).map((r) => r.status)).toEqual([200, 200, 200, 429]);
  });

  it("admits at once, synchronously, by default", () => {
    const provider = createProvider({ rpm: 1, clock: time.clock });
    void provider.call(oneRequest);
    expect(provider.stats().calls).toMatchObject([{ sentAt: 0, receivedAt: 0, status: 200 }]);
  });

  it("rejects the call when the function returns a delay setTimeout cannot honour, and charges nothing", async () => {
    const provider = createProvider({ rpm: 1, arrivalDelayMs: () => -1, clock: time.clock });
    await expect(provider.call(oneRequest)).rejects.toThrow(
      /arrivalDelayMs\(\) must be between 0 and 2147483647 ms, got -1/,
    );
    expect(provider.stats().calls).toEqual([]);
  });
});

describe("arrivalDelayMs over HTTP", () => {
  const chat = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 8 });

  it("admits the request that long after the server received it", async () => {
    let received!: () => void;
    const onServer = new Promise<void>((resolve) => (received = resolve));
    const provider = createProvider({
      rpm: 10,
      clock: time.clock,
      answerTokens: () => 1,
      arrivalDelayMs: () => {
        received();
        return 300;
      },
    });
    const server = await provider.listen();
    try {
      const response = fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: chat });
      await onServer;
      await time.at(299);
      expect(provider.stats().calls).toEqual([]);
      await time.at(300);
      const res = await response;
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("9");
      await res.text();
      expect(provider.stats().calls).toMatchObject([{ sentAt: 0, receivedAt: 300 }]);
    } finally {
      await server.close();
    }
  });

  it("answers 500 when the delay function throws", async () => {
    const server = await createProvider({
      arrivalDelayMs: () => {
        throw new Error("no route to host");
      },
    }).listen();
    try {
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: chat });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: { message: "no route to host" } });
    } finally {
      await server.close();
    }
  });
});
