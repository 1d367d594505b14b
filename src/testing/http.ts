import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicErrorBody } from "./anthropic-format.js";
import { arrive } from "./arrival.js";
import { delay } from "./delay.js";
import type { ProviderEngine, ResponseHeaders } from "./engine.js";
import { openAIInvalidRequestBody } from "./openai-format.js";
import type { ApiShape } from "./requests.js";
import { parseRequest } from "./requests.js";
import { rateLimitedBody } from "./rejection-bodies.js";
import { playSseStream } from "./sse.js";
import { WIRE_FORMATS } from "./wire-formats.js";

/**
 * Options of `provider.listen()`.
 * @inline
 */
export interface ListenOptions {
  /** Port on 127.0.0.1. Default 0: a free port. */
  port?: number;
}

/** A running simulated provider on 127.0.0.1. */
export interface ProviderServer {
  /**
   * Origin, `http://127.0.0.1:<port>`, without `/v1`: use `${url}/v1` as the
   * OpenAI SDK's `baseURL` and `url` itself as the Anthropic SDK's.
   */
  readonly url: string;
  /** The port listened on: the one asked for, or the free one chosen for port 0. */
  readonly port: number;
  /** Stops listening and closes every open connection (streams included); resolves once closed. Idempotent. */
  close(): Promise<void>;
}

/**
 * listen() serves HTTP with Node's http (Bun's and Deno's too). A name, not a literal, so that bundlers (tsup,
 * wrangler, Next.js) leave the import to run time: `node:` stays for Deno, and a Worker's bundle needs no http.
 */
const NODE_HTTP = "node:http";

/** How long an idle connection stays open: longer than any client's pool keeps one (undici's default is 4 s). */
const KEEP_ALIVE_MS = 60_000;

const ROUTES: Readonly<Record<string, ApiShape>> = {
  "/v1/chat/completions": "chat.completions",
  "/v1/messages": "messages",
  "/v1/responses": "responses",
  "/v1/embeddings": "embeddings",
};

/**
 * Serves `POST /v1/chat/completions`, `/v1/messages`, `/v1/responses` and `/v1/embeddings` from the engine.
 * `node:http` is loaded here, when called, so that `llm-limiter/testing` imports where there is none (Workers,
 * the Edge runtime) and runs in process there.
 */
export async function serve(engine: ProviderEngine, options: ListenOptions = {}): Promise<ProviderServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`listen: port must be an integer from 0 to 65535, got ${port}`);
  }
  const { createServer } = (await import(NODE_HTTP)) as typeof import("node:http");
  const server = createServer((req, res) => {
    handle(engine, req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, {}, { error: { message, type: "server_error", param: null, code: null } });
    });
  });
  // Node closes a connection idle for 5 s; a client whose loop lags reuses it as it closes ("other side closed").
  // Providers' edges keep idle connections far longer, so a simulated one does too.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive and streaming sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

async function handle(engine: ProviderEngine, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const shape = req.method === "POST" ? ROUTES[new URL(req.url ?? "/", "http://localhost").pathname] : undefined;
  const text = await readBody(req);
  if (shape === undefined) {
    const message = `Unknown request URL: ${req.method} ${req.url}`;
    const body =
      engine.options.dialect === "anthropic"
        ? anthropicErrorBody("not_found_error", message)
        : openAIInvalidRequestBody(message, "unknown_url");
    sendJson(res, 404, {}, body);
    return;
  }
  const wire = WIRE_FORMATS[shape];
  const json = parseJson(text);
  const parsed = parseRequest(shape, json, engine.options.defaultMaxTokens);
  if (!parsed.ok) {
    sendJson(res, 400, {}, wire.invalidRequest(parsed.message));
    return;
  }
  const request = parsed.request;
  // Unref'd, as every server-side wait: a closed server must not hold the process.
  const admission = await arrive(engine, { ...request, body: json }, false);
  if (!admission.admitted) {
    const context = { model: request.model, wallNow: engine.options.clock.wallNow() };
    const body = rateLimitedBody(engine.options.dialect, admission.rejection, context, wire.rateLimited);
    sendJson(res, 429, admission.headers, body);
    return;
  }
  const call = admission.call;
  const stream = wire.stream;
  if (request.stream && stream) {
    // The head, with rate-limit headers stamped now, goes out at admission;
    // the call completes (and is reconciled) with the last event.
    res.writeHead(200, { ...call.headers(), "content-type": "text/event-stream", "cache-control": "no-cache" });
    await playSseStream(res, stream(call.completion, request.includeUsage), call.latencyMs, () => call.complete());
    return;
  }
  // Unref'd: the listening server keeps the process alive, a closed one must not.
  await delay(call.latencyMs, false);
  const headers = call.complete();
  sendJson(res, 200, headers, wire.body(call.completion, request));
}

function sendJson(res: ServerResponse, status: number, headers: ResponseHeaders, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

/** The parsed body, or `undefined` when it is not JSON (the parser then reports a 400). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
