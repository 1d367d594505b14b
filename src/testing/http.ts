import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicErrorBody, anthropicMessageBody, anthropicMessageStream, anthropicRateLimitBody } from "./anthropic-format.js";
import { delay } from "./delay.js";
import type { AdmittedCall, ProviderEngine, ResponseHeaders } from "./engine.js";
import {
  chatCompletionBody,
  chatCompletionStream,
  openAIInvalidRequestBody,
  openAIRateLimitBody,
} from "./openai-format.js";
import type { ApiShape, ParsedChatRequest } from "./requests.js";
import { parseChatRequest } from "./requests.js";
import { playSseStream } from "./sse.js";

/** Options of `provider.listen()`. */
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
  readonly port: number;
  /** Stops listening and closes every open connection (streams included); resolves once closed. Idempotent. */
  close(): Promise<void>;
}

const ROUTES: Readonly<Record<string, ApiShape>> = {
  "/v1/chat/completions": "chat.completions",
  "/v1/messages": "messages",
};

/** Serves `POST /v1/chat/completions` and `POST /v1/messages` from the engine. */
export async function serve(engine: ProviderEngine, options: ListenOptions = {}): Promise<ProviderServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`listen: port must be an integer from 0 to 65535, got ${port}`);
  }
  const server = createServer((req, res) => {
    handle(engine, req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, {}, { error: { message, type: "server_error", param: null, code: null } });
    });
  });
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
    const body = engine.options.dialect === "anthropic" ? anthropicErrorBody("not_found_error", message) : openAIInvalidRequestBody(message, "unknown_url");
    sendJson(res, 404, {}, body);
    return;
  }
  const json = parseJson(text);
  const parsed = parseChatRequest(shape, json, engine.options.defaultMaxTokens);
  if (!parsed.ok) {
    const body = shape === "messages" ? anthropicErrorBody("invalid_request_error", parsed.message) : openAIInvalidRequestBody(parsed.message);
    sendJson(res, 400, {}, body);
    return;
  }
  const request = parsed.request;
  const admission = engine.admit({ ...request, body: json });
  if (!admission.admitted) {
    const body = shape === "messages" ? anthropicRateLimitBody(admission.rejection) : openAIRateLimitBody(admission.rejection);
    sendJson(res, 429, admission.headers, body);
    return;
  }
  const call = admission.call;
  if (request.stream) {
    await streamAnswer(shape, request, call, res);
    return;
  }
  // Unref'd: the listening server keeps the process alive, a closed one must not.
  await delay(call.latencyMs, false);
  const headers = call.complete();
  const body = shape === "messages" ? anthropicMessageBody(call.completion) : chatCompletionBody(call.completion);
  sendJson(res, 200, headers, body);
}

/** A stream's head (and its rate-limit headers) goes out at admission; the call completes with the last event. */
async function streamAnswer(shape: ApiShape, request: ParsedChatRequest, call: AdmittedCall, res: ServerResponse): Promise<void> {
  const events =
    shape === "messages" ? anthropicMessageStream(call.completion) : chatCompletionStream(call.completion, request.includeUsage);
  res.writeHead(200, { ...call.headers(), "content-type": "text/event-stream", "cache-control": "no-cache" });
  await playSseStream(res, events, call.latencyMs, () => call.complete());
}

function sendJson(res: ServerResponse, status: number, headers: ResponseHeaders, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
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
