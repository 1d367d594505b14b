import type { RedisScriptClient } from "./client.js";

/**
 * The part of an `@upstash/redis` `Redis` the store uses (a structural type:
 * no import of `@upstash/redis`). `new Redis({ url, token })`,
 * `Redis.fromEnv()` and the `@upstash/redis/cloudflare` client all fit.
 */
export interface UpstashLike {
  /** `EVALSHA` over Upstash's REST API: runs the script cached under `sha1` with the given KEYS and ARGV. */
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  /** `EVAL` over Upstash's REST API: runs `script` (caching it) with the given KEYS and ARGV. */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
}

/**
 * The command timeout of a store on an {@link upstash} client, in ms. Each
 * command is an HTTPS request, often from an edge region to the database's:
 * a round trip of tens to a few hundred ms, and a new isolate first opens its
 * TLS connection (two or three round trips more). 3 s lets those through and
 * still fails a request that lives for one call well before the platform's
 * own limit.
 */
export const UPSTASH_TIMEOUT_MS = 3_000;

/**
 * Adapts an `@upstash/redis` client (Redis over HTTP, as on Vercel's Edge
 * runtime or Cloudflare Workers) for `RedisStore`. `RedisStore` also takes such
 * a client as it is and wraps it with this.
 *
 * The scripts' replies come back as ioredis gives them. The client decodes
 * its default base64 response encoding itself; with its default
 * `automaticDeserialization` it then parses each string of a reply as JSON:
 * the adapter turns what that made of a string (`true`, an object) back
 * into its text, and a number parsed from a string
 * stays a number, which the store reads as it reads the string. Errors are
 * given back with the server's reply first (`NOSCRIPT …`, `ERR …`, without
 * the client's `Command failed:` prefix or its copy of the command), so the
 * store tells replies from outages as with the other clients; the REST API
 * refusing the token ("Unauthorized") becomes a `NOAUTH` reply, final, and a
 * limit of the database reached (`ERR max daily request limit exceeded`) an
 * outage, which the failure policy covers.
 *
 * The store's default `timeoutMs` on it is {@link UPSTASH_TIMEOUT_MS}. Build
 * the client with `retry: false`: its default retries (5, about 4 s of
 * backoff, after a network error) could land a booking after its call timed
 * out; the store has its own outage handling.
 *
 * @example
 * ```ts
 * import { Redis } from "@upstash/redis";
 * import { RedisStore, upstash } from "llm-limiter/redis";
 *
 * // Redis.fromEnv() reads UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.
 * const store = new RedisStore({
 *   client: upstash(Redis.fromEnv({ retry: false })),
 *   key: "openai:proj-a:gpt-4o",
 * });
 * ```
 */
export function upstash(client: UpstashLike): RedisScriptClient {
  return {
    // The client copies keys and args into its command; it never writes them.
    evalsha: (sha1, keys, args) =>
      client.evalsha(sha1, keys as string[], args as string[]).then(asReplied, asServerError),
    eval: (script, keys, args) =>
      client.eval(script, keys as string[], args as string[]).then(asReplied, asServerError),
    defaultTimeoutMs: UPSTASH_TIMEOUT_MS,
  };
}

/**
 * A reply as Redis sent it: what automatic deserialization parsed out of a
 * string (a boolean, an object) is given back as that text. A null stays one
 * (a script's `false` in a table is a nil; the text `null` is taken for one
 * too), and arrays are the script's own (Lua tables), kept as arrays.
 */
function asReplied(reply: unknown): unknown {
  return Array.isArray(reply) ? reply.map(field) : reply;
}

function field(value: unknown): unknown {
  if (typeof value === "string" || typeof value === "number" || value === null) return value;
  if (Array.isArray(value)) return value.map(field);
  return JSON.stringify(value);
}

/** `Command failed: ` (a command sent in an auto-pipeline) and `, command was: [...]` (one sent alone). */
const WRAPPING = /^(?:Command failed: )?([\s\S]*?)(?:, command was: [\s\S]*)?$/;

/**
 * A limit of the Upstash database (`ERR max daily request limit exceeded. Limit: 10000, …`, `ERR max requests
 * limit exceeded`): "not now" until it resets, not a wrong request, so the failure policy applies.
 */
const DATABASE_LIMIT = /^ERR max [\w ]*exceeded/;

function asServerError(error: unknown): never {
  if (!(error instanceof Error) || error.name !== "UpstashError") throw error;
  let reply = WRAPPING.exec(error.message)?.[1] ?? error.message;
  if (reply === "Unauthorized") reply = "NOAUTH Upstash refused the REST token (Unauthorized)";
  // Without a leading code, the store takes it for an outage.
  else if (DATABASE_LIMIT.test(reply)) reply = `Upstash is at a limit of the database: ${reply}`;
  const unwrapped = new Error(reply, { cause: error });
  unwrapped.name = error.name;
  throw unwrapped;
}
