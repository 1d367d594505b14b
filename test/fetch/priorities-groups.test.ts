import { describe, expect, it } from "vitest";
import { LimiterGroup, Limiter, PRIORITY_HEADER, TENANT_HEADER } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const URL_CHAT = "https://api.openai.com/v1/chat/completions";
const chat = (model: string, maxTokens = 100) => ({
  model,
  messages: [{ role: "user", content: "Hello there" }],
  max_tokens: maxTokens,
});
const usage = { usage: { prompt_tokens: 5, completion_tokens: 5 } };

/** A base fetch that answers at once and keeps the headers and models it was sent. */
function base(): { fetch: typeof globalThis.fetch; sent: { headers: Headers; model: unknown }[] } {
  const sent: { headers: Headers; model: unknown }[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const text = await request.text();
      sent.push({
        headers: request.headers,
        model: text ? (JSON.parse(text) as { model?: unknown }).model : undefined,
      });
      return new Response(JSON.stringify(usage), { headers: { "content-type": "application/json" } });
    },
  };
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("limiter.fetch() with priorities and tenants", () => {
  const time = useFakeTime();

  it("admits a call whose header names a more urgent class before the queued background calls", async () => {
    const limiter = new Limiter({
      rpm: 60,
      capacity: { rpm: 1 },
      initial: "full",
      priorities: ["interactive", "background"],
      clock: time.clock,
    });
    const sent = base();
    const fetch = limiter.fetch({ fetch: sent.fetch, priority: "background" });
    const order: string[] = [];
    const call = (name: string, headers?: Record<string, string>) =>
      fetch(URL_CHAT, post(chat("gpt-4o"), headers)).then(() => order.push(name));
    const calls = [call("first"), call("background-1"), call("background-2")];
    await time.at(10);
    calls.push(call("interactive", { [PRIORITY_HEADER]: "interactive" }));
    await time.at(5_000); // one request a second
    await Promise.all(calls);
    expect(order).toEqual(["first", "interactive", "background-1", "background-2"]);
    // The headers meant for the limiter never reach the provider.
    for (const { headers } of sent.sent) {
      expect(headers.has(PRIORITY_HEADER)).toBe(false);
      expect(headers.has(TENANT_HEADER)).toBe(false);
    }
    await limiter.close();
  });

  it("rejects a call whose header names no class, sending nothing and holding nothing", async () => {
    const limiter = new Limiter({ rpm: 60, initial: "full", priorities: ["interactive", "background"] });
    const sent = base();
    const fetch = limiter.fetch({ fetch: sent.fetch });
    await expect(fetch(URL_CHAT, post(chat("gpt-4o"), { [PRIORITY_HEADER]: "urgent" }))).rejects.toThrow(TypeError);
    expect(sent.sent).toHaveLength(0);
    expect(limiter.snapshot()).toMatchObject({ queued: 0, inFlight: 0 });
    expect(limiter.snapshot().dimensions.rpm?.available).toBe(60);
  });

  it("refuses a priority or tenant option that is not a string at once", () => {
    const limiter = new Limiter({ rpm: 60 });
    expect(() => limiter.fetch({ priority: 1 as unknown as string })).toThrow(TypeError);
    expect(() => limiter.fetch({ tenant: {} as unknown as string })).toThrow(TypeError);
  });
});

describe("group.fetch()", () => {
  it("admits each request on the member its body's model names, and on the shared budget", async () => {
    const group = new LimiterGroup({
      models: { "gpt-4o": { rpm: 10 }, "gpt-4o-mini": { rpm: 100 } },
      shared: { rpm: 50 },
      initial: "full",
    });
    const sent = base();
    const fetch = group.fetch({ fetch: sent.fetch });
    await fetch(URL_CHAT, post(chat("gpt-4o")));
    await fetch(URL_CHAT, post(chat("gpt-4o-mini")));
    await fetch(URL_CHAT, post(chat("gpt-4o-mini")));
    const { members, shared } = group.snapshot();
    expect(members["gpt-4o"]?.dimensions.rpm?.available).toBe(9);
    expect(members["gpt-4o-mini"]?.dimensions.rpm?.available).toBe(98);
    expect(shared.rpm?.available).toBe(47);
    expect(sent.sent.map((s) => s.model)).toEqual(["gpt-4o", "gpt-4o-mini", "gpt-4o-mini"]);
    await group.close();
  });

  it("makes a member from default for an unlisted model, and rejects one without default", async () => {
    const withDefault = new LimiterGroup({ models: {}, default: { rpm: 5 }, initial: "full" });
    const sent = base();
    await withDefault.fetch({ fetch: sent.fetch })(URL_CHAT, post(chat("o3")));
    expect(withDefault.snapshot().members.o3?.dimensions.rpm?.available).toBe(4);
    await withDefault.close();

    const without = new LimiterGroup({ models: { "gpt-4o": { rpm: 5 } } });
    await expect(without.fetch({ fetch: sent.fetch })(URL_CHAT, post(chat("o3")))).rejects.toThrow(TypeError);
    expect(sent.sent).toHaveLength(1);
    await without.close();
  });

  it("sends a request that names no model unadmitted", async () => {
    const group = new LimiterGroup({ models: { "gpt-4o": { rpm: 5 } }, initial: "full" });
    const sent = base();
    await group.fetch({ fetch: sent.fetch })("https://api.openai.com/v1/models");
    expect(sent.sent).toHaveLength(1);
    expect(group.snapshot().members["gpt-4o"]?.dimensions.rpm?.available).toBe(5);
    await group.close();
  });
});
