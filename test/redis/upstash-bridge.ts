/**
 * A REST endpoint that speaks Upstash's protocol in front of a real
 * redis-server, for running `@upstash/redis` against it in the tests.
 *
 * What it answers, as Upstash's REST API does
 * (https://upstash.com/docs/redis/features/restapi) and as @upstash/redis 1.39
 * reads it (pkg/http.ts, pkg/pipeline.ts):
 * - `POST /` with the command as a JSON array (`["EVALSHA", sha1, "2", ...]`):
 *   `{"result": …}`, or `{"error": "<the server's error reply>"}` with status 400;
 * - `POST /pipeline` with an array of commands: an array of `{"result"}` /
 *   `{"error"}` in order, status 200 (not atomic: each command runs alone);
 * - `POST /multi-exec`: the same, in one MULTI/EXEC;
 * - `Authorization: Bearer <token>` (or `?_token=`), else 401 `{"error": "Unauthorized"}`;
 * - `Upstash-Encoding: base64`: every string of a result base64-encoded (UTF-8),
 *   but for a bare `OK`, which the client reads as it is (see `encode`);
 *   integers as JSON numbers, nil as `null`, arrays nested as they are.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis as UpstashRedis, type RedisConfigNodejs } from "@upstash/redis";
import { Redis } from "ioredis";

export interface UpstashBridge {
  /** `http://127.0.0.1:<port>`: the `url` for `new Redis({ url, token })` of @upstash/redis. */
  readonly url: string;
  /** The token it accepts. */
  readonly token: string;
  /** Requests answered so far, by path (`/`, `/pipeline`, `/multi-exec`). */
  readonly requests: Record<string, number>;
  /** The commands run so far, each as its name in capitals (`EVALSHA`, `EVAL`). */
  readonly commands: string[];
  close(): Promise<void>;
}

type Reply = { result: unknown } | { error: string };

/** What a bridge may be told. */
export interface BridgeOptions {
  /** The token it accepts. */
  readonly token?: string;
  /** Ms to hold each command before it runs (a request held holds its pipeline's later commands): a slow request. */
  readonly delayMs?: (command: readonly string[]) => number;
}

/** Starts a bridge to the redis-server at `redisUrl`, on a free port. */
export async function startUpstashBridge(
  redisUrl: string,
  { token = "test-token", delayMs }: BridgeOptions = {},
): Promise<UpstashBridge> {
  // Fails at once while the server is down, as Upstash answers an error rather than queueing.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
  redis.on("error", () => {});
  await redis.connect().catch(() => {});
  const requests: Record<string, number> = {};
  const commands: string[] = [];

  const run = async (command: unknown): Promise<Reply> => {
    if (!Array.isArray(command) || command.length === 0 || !command.every(isArgument))
      return { error: "ERR the command must be a non-empty JSON array of strings and numbers" };
    const [name, ...args] = command.map(String) as [string, ...string[]];
    const held = delayMs?.([name, ...args]) ?? 0;
    if (held > 0) await new Promise((resolve) => setTimeout(resolve, held));
    commands.push(name.toUpperCase());
    try {
      return { result: await redis.call(name, ...args) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };

  const answer = async (request: IncomingMessage, body: string, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://bridge");
    const given = request.headers.authorization?.replace(/^Bearer /, "") ?? url.searchParams.get("_token");
    if (given !== token) return send(response, 401, { error: "Unauthorized" });
    if (request.method !== "POST") return send(response, 405, { error: "Method Not Allowed" });
    const path = url.pathname.replace(/\/+$/, "") || "/";
    requests[path] = (requests[path] ?? 0) + 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return send(response, 400, { error: "ERR failed to parse the request body as JSON" });
    }
    const base64 = request.headers["upstash-encoding"] === "base64";
    const encoded = (reply: Reply): Reply => ("result" in reply && base64 ? { result: encode(reply.result) } : reply);
    if (path === "/") {
      const reply = await run(parsed);
      return send(response, "error" in reply ? 400 : 200, encoded(reply));
    }
    if (path !== "/pipeline" && path !== "/multi-exec") return send(response, 404, { error: "Not Found" });
    if (!Array.isArray(parsed)) return send(response, 400, { error: "ERR a pipeline is a JSON array of commands" });
    if (path === "/pipeline") {
      const replies: Reply[] = [];
      // In order, one after another, as Upstash guarantees for a pipeline.
      for (const command of parsed) replies.push(encoded(await run(command)));
      return send(response, 200, replies);
    }
    const results = await redis.multi(parsed.map((c: unknown[]) => c.map(String))).exec();
    const replies = (results ?? []).map(([error, result]): Reply =>
      error ? { error: error.message } : encoded({ result }),
    );
    return send(response, 200, replies);
  };

  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      answer(request, body, response).catch((error: unknown) => send(response, 500, { error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    commands,
    // As a client's quit(): what is on its way is answered first, then the connections close.
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/**
 * An `@upstash/redis` client of the bridge, as a user builds one (its defaults: base64 responses, automatic
 * deserialization, auto-pipelining), with `retry: false` as docs/redis.md advises and no telemetry headers.
 */
export function upstashClient(bridge: UpstashBridge, config: Partial<RedisConfigNodejs> = {}): UpstashRedis {
  return new UpstashRedis({ url: bridge.url, token: bridge.token, retry: false, enableTelemetry: false, ...config });
}

function isArgument(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number";
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify(body));
}

/**
 * Upstash's base64 response encoding: strings encoded, but a bare `OK` (a
 * status reply), which @upstash/redis reads as it is at the top and in nested
 * arrays, though not among a flat array's elements (its `decode`).
 */
function encode(result: unknown, inArray = false): unknown {
  if (typeof result === "string")
    return result === "OK" && !inArray ? result : Buffer.from(result, "utf8").toString("base64");
  if (Array.isArray(result))
    return result.map((element) => (Array.isArray(element) ? element.map((e) => encode(e)) : encode(element, true)));
  return result;
}
