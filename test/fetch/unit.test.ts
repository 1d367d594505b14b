import { describe, expect, it } from "vitest";
import { Limiter, estimateRequest } from "../../src/index.js";
import { ADMITTED_HEADER } from "../../src/fetch/call-headers.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { eventually, recording } from "./recording.js";

/** A base fetch that answers every request with `answer` and keeps what it was sent. */
function stubFetch(answer: () => Response): { fetch: typeof globalThis.fetch; sent: Request[] } {
  const sent: Request[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      sent.push(new Request(input, init));
      return answer();
    },
  };
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** An SSE response whose events arrive in the given pieces of text. */
function sse(pieces: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

function setUp(answer: () => Response, options: Parameters<typeof limitedFetch>[1] = {}) {
  const limiter = new Limiter({ tpm: 100_000, initial: "full" });
  const { admitter, calls } = recording(limiter);
  const base = stubFetch(answer);
  const models: (string | undefined)[] = [];
  const fetch = limitedFetch(
    (model) => {
      models.push(model);
      return admitter;
    },
    { ...options, fetch: base.fetch },
  );
  return { limiter, calls, sent: base.sent, fetch, models };
}

const chat = { model: "gpt-4o", messages: [{ role: "user", content: "Hello there" }], max_tokens: 100 };

describe("limitedFetch", () => {
  it("passes a request that carries the admitted header through, the header stripped", async () => {
    const { fetch, calls, sent } = setUp(() => json({ usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    await fetch("https://api.openai.com/v1/chat/completions", post(chat, { [ADMITTED_HEADER]: "1" }));
    expect(calls).toEqual([]);
    expect(sent[0]?.headers.has(ADMITTED_HEADER)).toBe(false);
    expect(await sent[0]?.json()).toEqual(chat);
  });

  it("charges only the request for GETs, forms and unknown endpoints, and syncs their headers", async () => {
    const { fetch, calls } = setUp(() => json({ data: [] }));
    await fetch("https://api.openai.com/v1/models");
    const form = new FormData();
    form.set("purpose", "batch");
    await fetch("https://api.openai.com/v1/files", { method: "POST", body: form });
    await fetch("https://api.openai.com/v1/moderations", post({ input: "text" }));
    expect(calls).toEqual(
      Array.from({ length: 3 }, () => ({
        estimate: { input: 0, output: 0 },
        settled: [],
        synced: [200],
        released: true,
      })),
    );
  });

  it("reads the JSON body of a Request object, which still carries it when sent", async () => {
    const { fetch, calls, sent } = setUp(() => json({}));
    await fetch(new Request("https://api.openai.com/v1/chat/completions", post(chat)));
    expect(calls[0]?.estimate).toEqual(estimateRequest(chat, { endpoint: "chat.completions" }));
    expect(await sent[0]?.json()).toEqual(chat);
  });

  it("picks the limiter by the body's model, or Azure's deployment in the path", async () => {
    const { fetch, models } = setUp(() => json({}));
    await fetch("https://api.groq.com/openai/v1/chat/completions", post({ ...chat, model: "llama-3.3-70b" }));
    const { model: _model, ...azure } = chat;
    await fetch(
      "https://x.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21",
      post(azure),
    );
    expect(models).toEqual(["llama-3.3-70b", "gpt4o-prod"]);
  });

  it("settles a Responses API body and stream, and an embeddings body", async () => {
    let answer = json({ usage: { input_tokens: 5, output_tokens: 7 } });
    const { fetch, calls } = setUp(() => answer);
    await fetch("https://api.openai.com/v1/responses", post({ model: "gpt-4o", input: "Hi", max_output_tokens: 50 }));
    answer = sse([
      'event: response.created\ndata: {"type":"response.created"}\n\n',
      'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":6,"output_tokens":8}}}\n\n',
    ]);
    const streamed = await fetch(
      "https://api.openai.com/v1/responses",
      post({ model: "gpt-4o", input: "Hi", stream: true }),
    );
    await streamed.text();
    answer = json({ usage: { prompt_tokens: 9, total_tokens: 9 } });
    await fetch("https://api.openai.com/v1/embeddings", post({ model: "text-embedding-3-small", input: ["a", "b"] }));
    await eventually(() => calls.length === 3 && calls.every((c) => c.released));
    expect(calls.map((c) => c.settled)).toEqual([
      [{ input: 5, output: 7 }],
      [{ input: 6, output: 8 }],
      [{ input: 9, output: 0 }],
    ]);
    expect(calls[0]?.estimate).toEqual(
      estimateRequest({ model: "gpt-4o", input: "Hi", max_output_tokens: 50 }, { endpoint: "responses" }),
    );
  });

  it("reads SSE events split anywhere, with CRLF line ends, and hides only the usage chunk it asked for", async () => {
    const events =
      'data: {"choices":[{"delta":{"content":"Hi"}}],"usage":null}\r\n\r\n' +
      'data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2}}\r\n\r\n' +
      "data: [DONE]\r\n\r\n";
    const pieces = events.match(/[\s\S]{1,7}/g)!;
    const { fetch, calls, sent } = setUp(() => sse(pieces));
    const response = await fetch("https://api.openai.com/v1/chat/completions", post({ ...chat, stream: true }));
    const text = await response.text();
    expect(text).toBe(events.replace(/data: \{"choices":\[\],[^\r]*\r\n\r\n/, ""));
    expect(await sent[0]?.json()).toMatchObject({ stream_options: { include_usage: true } });
    expect(calls[0]).toMatchObject({ settled: [{ input: 4, output: 2 }], released: true });
  });

  it("leaves the stream as it is with streamUsage: false", async () => {
    const { fetch, calls, sent } = setUp(() => sse(["data: [DONE]\n\n"]), { streamUsage: false });
    await (await fetch("https://api.openai.com/v1/chat/completions", post({ ...chat, stream: true }))).text();
    expect(await sent[0]?.json()).toEqual({ ...chat, stream: true });
    expect(calls[0]).toMatchObject({ settled: [], released: true });
  });

  it("settles Anthropic cache reads only when countCacheReads is set", async () => {
    const usage = { input_tokens: 10, cache_creation_input_tokens: 20, cache_read_input_tokens: 300, output_tokens: 5 };
    const body = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] };
    for (const [countCacheReads, input, cache] of [
      [false, 30, { cacheWrite: 20 }],
      [true, 330, { cachedInput: 300, cacheWrite: 20 }],
    ] as const) {
      const { fetch, calls } = setUp(() => json({ usage }), { countCacheReads });
      await fetch("https://api.anthropic.com/v1/messages", post(body));
      await eventually(() => calls[0]?.released === true);
      expect(calls[0]?.settled).toEqual([{ input, output: 5, ...cache }]);
    }
  });

  it("names OpenAI's cached prompt tokens as the input's cached part", async () => {
    const usage = { prompt_tokens: 1_000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 600 } };
    const { fetch, calls } = setUp(() => json({ usage }));
    await fetch("https://api.openai.com/v1/chat/completions", post(chat));
    await eventually(() => calls[0]?.released === true);
    expect(calls[0]?.settled).toEqual([{ input: 1_000, output: 5, cachedInput: 600 }]);
  });

  it("keeps the estimate of a failed call, and syncs its status and body once, as the body comes", async () => {
    const { fetch, calls } = setUp(() => json({ error: { type: "server_error" } }, 500));
    const response = await fetch("https://api.openai.com/v1/chat/completions", post(chat));
    await eventually(() => calls[0]?.released === true);
    expect(calls[0]).toMatchObject({ settled: [], synced: [500], released: true });
    expect(await response.json()).toEqual({ error: { type: "server_error" } });
  });

  it("uses an estimate override", async () => {
    const { fetch, calls } = setUp(() => json({}), {
      estimate: (_body, info) => ({ input: info.model === "gpt-4o" ? 42 : 0, output: 1 }),
    });
    await fetch("https://api.openai.com/v1/chat/completions", post(chat));
    expect(calls[0]?.estimate).toEqual({ input: 42, output: 1 });
  });

  it("refuses bad options at once", () => {
    const pick = () => new Limiter();
    expect(() => limitedFetch(pick, { fetch: 1 as never })).toThrow(TypeError);
    expect(() => limitedFetch(pick, { defaultMaxTokens: -1 })).toThrow(RangeError);
    expect(() => limitedFetch(pick, { imageSize: { width: 0, height: 1 } })).toThrow(RangeError);
    expect(() => limitedFetch(pick, { countCacheReads: "yes" as never })).toThrow(TypeError);
  });

  it("releases the reservation when the base fetch fails, the estimate standing", async () => {
    const limiter = new Limiter({ tpm: 100_000, initial: "full" });
    const { admitter, calls } = recording(limiter);
    const failing = limitedFetch(() => admitter, { fetch: () => Promise.reject(new TypeError("fetch failed")) });
    await expect(failing("https://api.openai.com/v1/chat/completions", post(chat))).rejects.toThrow("fetch failed");
    expect(calls[0]).toMatchObject({ settled: [], released: true });
    expect(limiter.snapshot().inFlight).toBe(0);
  });
});
