import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import type { IncomingMessage } from "node:http";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { installFakeTime } from "../fake-time.js";

const chatBody = (extra: object = {}): string =>
  JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 8, ...extra });

function post(url: string, body: string): Promise<{ status: number; headers: Headers; text: string }> {
  return fetch(url, { method: "POST", body, headers: { "content-type": "application/json" } }).then(async (res) => ({
    status: res.status,
    headers: res.headers,
    text: await res.text(),
  }));
}

describe("HTTP routes", () => {
  it("answers 404 for an unknown route and 400 for a body that is not JSON", async () => {
    const server = await createProvider().listen();
    try {
      const missing = await post(`${server.url}/v1/completions`, chatBody());
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.text)).toMatchObject({ error: { type: "invalid_request_error", code: "unknown_url" } });
      const getMessages = await fetch(`${server.url}/v1/messages`);
      expect(getMessages.status).toBe(404);
      await getMessages.text();
      const broken = await post(`${server.url}/v1/messages`, "{not json");
      expect(broken.status).toBe(400);
      expect(JSON.parse(broken.text)).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    } finally {
      await server.close();
    }
  });

  it("serves the OpenAI route on an anthropic-dialect provider with Anthropic's headers", async () => {
    const server = await createProvider({ rpm: 10, dialect: "anthropic" }).listen();
    try {
      const response = await post(`${server.url}/v1/chat/completions`, chatBody());
      expect(response.status).toBe(200);
      expect(JSON.parse(response.text)).toMatchObject({ object: "chat.completion" });
      expect(response.headers.get("anthropic-ratelimit-requests-remaining")).toBe("9");
    } finally {
      await server.close();
    }
  });

  it("rejects an invalid port", async () => {
    await expect(createProvider().listen({ port: 70_000 })).rejects.toThrow(RangeError);
  });
});

describe("streams on virtual time", () => {
  it("send their head at admission and hold the concurrency slot and the reservation until the last event", async () => {
    const { timers, clock } = installFakeTime({ fake: "timeouts", wallStartMs: 0 });
    const provider = createProvider({
      concurrency: 1,
      tpm: 1_000,
      latencyMs: 1_000,
      answerTokens: () => 2,
      clock,
    });
    const server = await provider.listen();
    try {
      const stream = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        body: chatBody({ stream: true }),
      });
      // Stamped at admission: the reservation (prompt + max_tokens) is still held.
      const prompt = 3 + 3 + 1;
      expect(stream.headers.get("x-ratelimit-remaining-tokens")).toBe(String(1_000 - prompt - 8));
      expect(stream.headers.get("content-type")).toBe("text/event-stream");
      const reader = stream.body!.getReader();
      await reader.read();

      const second = await post(`${server.url}/v1/chat/completions`, chatBody());
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after-ms")).toBe("1000");
      expect(provider.stats()).toMatchObject({ inFlight: 1, rejectedBy: { concurrency: 1 } });

      await timers.tickAsync(999);
      expect(provider.stats().inFlight).toBe(1);
      await timers.tickAsync(1);
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += new TextDecoder().decode(chunk.value);
      expect(rest.endsWith("data: [DONE]\n\n")).toBe(true);
      expect(provider.stats()).toMatchObject({ inFlight: 0, served: 1, tokensUsed: prompt + 2 });
      expect(provider.stats().calls[0]?.completedAt).toBe(1_000);
    } finally {
      await server.close();
      timers.uninstall();
    }
  });
});

describe("close()", () => {
  it("closes idle keep-alive and streaming connections and resolves; calling it again is harmless", async () => {
    const server = await createProvider({ latencyMs: (call) => (call.stream ? 60_000 : 0) }).listen();
    const agent = new Agent({ keepAlive: true });
    const open = (body: string): Promise<IncomingMessage> =>
      new Promise((resolve, reject) => {
        const req = request(`${server.url}/v1/chat/completions`, { method: "POST", agent }, resolve);
        req.on("error", reject);
        req.end(body);
      });
    const closed = (emitter: NodeJS.EventEmitter): Promise<void> =>
      new Promise((resolve) => emitter.once("close", () => resolve()));

    const answered = await open(chatBody());
    const idleSocketClosed = closed(answered.socket);
    answered.resume();
    await new Promise((resolve) => answered.once("end", resolve));
    const streaming = await open(chatBody({ stream: true }));
    streaming.on("error", () => undefined);
    const streamClosed = closed(streaming);

    const started = Date.now();
    await server.close();
    await Promise.all([idleSocketClosed, streamClosed]);
    expect(Date.now() - started).toBeLessThan(1_000);
    await server.close();
    await expect(fetch(`${server.url}/v1/messages`, { method: "POST", body: chatBody() })).rejects.toThrow();
    agent.destroy();
  });

  it("leaves nothing that keeps the process alive, even with a stream still on the server's timeline", async () => {
    const fixture = fileURLToPath(new URL("./fixtures/close-then-exit.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", fixture], { stdio: ["ignore", "pipe", "pipe"] });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill();
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(output).toBe("closed\n");
    expect(code).toBe(0);
    // The stream would have lasted 60 s; the child exits as soon as its work is done.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
