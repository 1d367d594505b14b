import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Limiter, LimiterGroup, type SettledEvent } from "../../src/index.js";

/**
 * limiter.fetch() against an upstream that stalls, never ends, sends far too much or sends bytes that are
 * not UTF-8: the caller's fetch resolves at the headers as a raw fetch does, reads the exact bytes, and
 * the concurrency slot is free once the caller cancels, aborts or the body is read.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const routes = new Map<string, Handler>();
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => routes.get(req.url ?? "")?.(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Serves `handler` at a fresh path of the OpenAI API shape (`kind` names the endpoint); returns its URL. */
function route(kind: "chat/completions" | "responses", handler: Handler): string {
  const path = `/${routes.size}/v1/${kind}`;
  routes.set(path, handler);
  return origin + path;
}

const chat = { model: "gpt-4o", messages: [{ role: "user", content: "Hello" }], max_tokens: 100 };
const post = (body: unknown = chat, signal?: AbortSignal): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
  ...(signal && { signal }),
});

function setUp(): { limiter: Limiter; fetch: typeof globalThis.fetch; warnings: Error[]; settled: SettledEvent[] } {
  const warnings: Error[] = [];
  const limiter = new Limiter({ tpm: 1_000_000, concurrency: 1, initial: "full", onWarning: (w) => warnings.push(w) });
  const settled: SettledEvent[] = [];
  limiter.on("settled", (event) => settled.push(event));
  return { limiter, fetch: limiter.fetch(), warnings, settled };
}

/** Nothing held: no call in flight, the one slot free. */
function expectFree(limiter: Limiter): void {
  const snapshot = limiter.snapshot();
  expect(snapshot.inFlight).toBe(0);
  expect(snapshot.concurrency?.available).toBe(1);
}

/** Resolves once `check` holds, turning the event loop (sockets included) in between. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !check(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(check()).toBe(true);
}

/** A promise and its resolver, for a handler that waits for the test. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe("limiter.fetch() against a hostile upstream", () => {
  it("a JSON body that stalls: the caller's cancel resolves and frees the slot at once", async () => {
    const { limiter, fetch } = setUp();
    const url = route("chat/completions", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id":"chatcmpl-1","choices":[');
    });
    const response = await fetch(url, post());
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"id":"chatcmpl-1","choices":[');
    await reader.cancel();
    expectFree(limiter);
  });

  it("a request aborted while its JSON body stalls frees the slot at once", async () => {
    const { limiter, fetch } = setUp();
    const url = route("chat/completions", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
    });
    const controller = new AbortController();
    const response = await fetch(url, post(chat, controller.signal));
    controller.abort();
    expectFree(limiter);
    await expect(response.text()).rejects.toThrow();
  });

  for (const status of [429, 500]) {
    it(`a ${status} whose body never ends resolves at its headers, and the caller's cancel frees the slot`, async () => {
      const { limiter, fetch } = setUp();
      const url = route("chat/completions", (_req, res) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.write('{"error":{"message":"Please try again in 1s.","type":"tokens"');
      });
      const response = await fetch(url, post());
      expect(response.status).toBe(status);
      await response.body!.cancel();
      expectFree(limiter);
    });
  }

  it("a 50 MB error body reaches the caller as it comes, whole, and the slot is free before its end", async () => {
    const { limiter, fetch } = setUp();
    const rest = gate();
    const piece = Buffer.alloc(1024 * 1024, "x");
    const url = route("chat/completions", (_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.write(piece);
      void rest.opened.then(() => {
        for (let i = 1; i < 50; i++) res.write(piece);
        res.end();
      });
    });
    const response = await fetch(url, post());
    // Its first 64 KiB are read for the sync; the rest is the caller's alone.
    await until(() => limiter.snapshot().inFlight === 0);
    rest.open();
    expect((await bytesOf(response)).length).toBe(50 * piece.length);
    expectFree(limiter);
  });

  // With its usage chunk asked for by the wrapper (hidden from the caller), an incomplete event is held
  // back while it may still be that chunk: 16 KiB at most.
  for (const [asked, before] of [
    [true, 1],
    [false, 64],
  ] as const) {
    it(`an 8 MB stream with no blank line reaches the caller as it comes, byte for byte (usage ${asked ? "asked for" : "added"})`, async () => {
      const { limiter, fetch } = setUp();
      const rest = gate();
      const line = Buffer.from(`data: ${"y".repeat(1000)}\n`);
      const lines = Math.ceil((8 * 1024 * 1024) / line.length);
      const url = route("chat/completions", (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (let i = 0; i < before; i++) res.write(line);
        void rest.opened.then(() => {
          for (let i = before; i < lines; i++) res.write(line);
          res.end();
        });
      });
      const body = { ...chat, stream: true, ...(asked && { stream_options: { include_usage: true } }) };
      const response = await fetch(url, post(body));
      const reader = response.body!.getReader();
      // Something arrives before the source ends.
      const first = await reader.read();
      expect(first.value?.length).toBeGreaterThan(0);
      rest.open();
      const chunks = [first.value!];
      for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
      expect(Buffer.concat(chunks).equals(Buffer.concat(Array.from({ length: lines }, () => line)))).toBe(true);
      expectFree(limiter);
    });
  }

  it("a stream's bytes that are not UTF-8 reach the caller unchanged, and its usage still settles", async () => {
    const { limiter, fetch, settled } = setUp();
    const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
    const parts = [
      Buffer.from('data: {"choices":[{"delta":{"content":"'),
      Buffer.from([0xff, 0xfe, 0xc3]), // invalid, then the first byte of "é" ...
      Buffer.from([0xa9, 0xed, 0xa0, 0x80, 0xf0, 0x9f]), // ... its second, a surrogate, half an emoji
      Buffer.from('"}}]}\n\n'),
      Buffer.from(`data: ${JSON.stringify({ choices: [], usage })}\n\n`),
      Buffer.from("data: [DONE]\n\n"),
    ];
    const url = route("chat/completions", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const write = (i: number): void => {
        if (i === parts.length) res.end();
        else res.write(parts[i], () => setImmediate(() => write(i + 1)));
      };
      write(0);
    });
    const body = { ...chat, stream: true, stream_options: { include_usage: true } };
    const received = await bytesOf(await fetch(url, post(body)));
    expect(received.equals(Buffer.concat(parts))).toBe(true);
    await until(() => settled.length === 1);
    expect(settled[0]?.usage).toEqual({ input: 7, output: 3 });
    expectFree(limiter);
  });

  it("a single event larger than 8 MiB passes whole, unread, with a warning; one of 2 MiB is read", async () => {
    const { limiter, fetch, warnings, settled } = setUp();
    const completed = (text: string) => ({
      type: "response.completed",
      response: { output_text: text, usage: { input_tokens: 5, output_tokens: 9 } },
    });
    const streamOf = (text: string) =>
      Buffer.from(`event: response.completed\ndata: ${JSON.stringify(completed(text))}\n\n`);
    const serve = (stream: Buffer) =>
      route("responses", (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (let at = 0; at < stream.length; at += 65_536) res.write(stream.subarray(at, at + 65_536));
        res.end();
      });
    const request = { model: "gpt-4o", input: "Hi", max_output_tokens: 100, stream: true };
    const small = streamOf("z".repeat(2 * 1024 * 1024));
    expect((await bytesOf(await fetch(serve(small), post(request)))).equals(small)).toBe(true);
    await until(() => settled.length === 1);
    expect(settled[0]?.usage).toEqual({ input: 5, output: 9 });
    const huge = streamOf("z".repeat(9 * 1024 * 1024));
    expect((await bytesOf(await fetch(serve(huge), post(request)))).equals(huge)).toBe(true);
    await until(() => settled.length === 2);
    expect(settled[1]?.usage).toBeUndefined();
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("the estimate stands")]);
    expectFree(limiter);
  });

  it("a stream whose request aborts frees the slot at once, unread", async () => {
    const { limiter, fetch } = setUp();
    const url = route("chat/completions", (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {}\n\n");
    });
    const controller = new AbortController();
    await fetch(url, post({ ...chat, stream: true }, controller.signal));
    controller.abort();
    expectFree(limiter);
  });
});

describe("limiter.fetch() options", () => {
  it("refuses an unknown option, and a priority the limiter does not have, at once", () => {
    const limiter = new Limiter({ rpm: 60, priorities: ["high", "low"] });
    expect(() => limiter.fetch({ prority: "high" } as never)).toThrow(/fetch\(\): unknown option "prority"/);
    expect(() => limiter.fetch({ priority: "urgent" })).toThrow(TypeError);
    expect(() => limiter.fetch({ priority: "urgent" })).toThrow(/fetch\(\): priority must be one of "high", "low"/);
    expect(() => limiter.fetch({ priority: "low" })).not.toThrow();
  });

  it("refuses the same on a group's fetch", () => {
    const group = new LimiterGroup({ models: { "gpt-4o": { rpm: 10 } }, priorities: ["high", "low"] });
    expect(() => group.fetch({ priority: "urgent" })).toThrow(/fetch\(\): priority must be one of "high", "low"/);
    expect(() => group.fetch({ tpm: 1 } as never)).toThrow(/fetch\(\): unknown option "tpm"/);
  });
});
