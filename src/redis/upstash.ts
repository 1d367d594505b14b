import type { RedisScriptClient } from "./client.js";

/**
 * A pipeline of an `@upstash/redis` `Redis`: commands sent in one request, run in order.
 * @inline
 */
export interface UpstashPipelineLike {
  /** Adds an `EVALSHA`. */
  evalsha(sha1: string, keys: string[], args: string[]): UpstashPipelineLike;
  /** Adds an `EVAL`. */
  eval(script: string, keys: string[], args: string[]): UpstashPipelineLike;
  /** Sends them; with `keepErrors`, one `{ result }` or `{ error }` per command, in order. */
  exec(options: { keepErrors: true }): Promise<unknown[]>;
}

/**
 * The part of an `@upstash/redis` `Redis` the store uses (a structural type:
 * no import of `@upstash/redis`). `new Redis({ url, token })`,
 * `Redis.fromEnv()` and the `@upstash/redis/cloudflare` client all fit.
 * @inline
 */
export interface UpstashLike {
  /** `EVALSHA` over Upstash's REST API: runs the script cached under `sha1` with the given KEYS and ARGV. */
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  /** `EVAL` over Upstash's REST API: runs `script` (caching it) with the given KEYS and ARGV. */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  /** A pipeline: the commands that queued while a request was on its way go in one. */
  pipeline(): UpstashPipelineLike;
}

/** Options of {@link upstash}. */
export interface UpstashOptions {
  /**
   * The store's `timeoutMs` when its options set none, in ms, and the longest
   * a command waits in the adapter for the request before it (see
   * {@link upstash}): set the timeout here rather than on the store.
   * @default 3_000
   */
  readonly timeoutMs?: number;
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
 * a client as it is and wraps it with this (one adapter per client, shared by
 * its stores).
 *
 * **In order, like one connection.** Upstash runs concurrent requests in any
 * order, and the store needs its own commands run in the order it sends them
 * (a response's settle, then its headers' reading, then the next booking). So
 * the adapter keeps one request on its way at a time: the commands sent
 * meanwhile wait and go together in the next, as one pipeline, which Upstash
 * runs in order. A command waits at most `timeoutMs` for the request before
 * it; then it is sent anyway (that request is given up on), and one that has
 * waited longer than that is dropped, never sent: its call has timed out.
 *
 * **Replies as ioredis gives them.** The client decodes its default base64
 * response encoding itself; with its default `automaticDeserialization` it
 * then parses each string of a reply as JSON: the adapter turns what that made
 * of a string (`true`, an object) back into its text, and a number parsed from
 * a string stays a number, which the store reads as it reads the string.
 * Errors are given back with the server's reply first (`NOSCRIPT …`, `ERR …`,
 * without the client's `Command failed:` prefix or its copy of the command),
 * so the store tells replies from outages as with the other clients. The REST
 * API refusing the token ("Unauthorized") becomes a `NOAUTH` reply, final; a
 * limit of the database reached (`ERR max daily request limit exceeded`), an
 * outage, which the failure policy covers.
 *
 * Build the client with `retry: false`: its default retries (5, about 4 s of
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
 *   client: upstash(Redis.fromEnv({ retry: false }), { timeoutMs: 2_000 }),
 *   key: "openai:proj-a:gpt-4o",
 * });
 * ```
 */
export function upstash(client: UpstashLike, options: UpstashOptions = {}): RedisScriptClient {
  return new InOrder(client, options.timeoutMs ?? UPSTASH_TIMEOUT_MS);
}

/** The adapters of clients `RedisStore` took as they are: one per client, so that its stores share the order. */
const taken = new WeakMap<UpstashLike, RedisScriptClient>();

/** {@link upstash} for a client passed to `RedisStore` as it is: the same adapter every time. */
export function upstashAsItIs(client: UpstashLike): RedisScriptClient {
  let adapter = taken.get(client);
  if (adapter === undefined) taken.set(client, (adapter = upstash(client)));
  return adapter;
}

/** A command waiting for the request before it. */
interface Waiting {
  readonly command: "evalsha" | "eval";
  readonly first: string;
  readonly keys: string[];
  readonly args: string[];
  readonly at: number;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** The adapter: one request on its way at a time, the commands sent meanwhile in the next (see {@link upstash}). */
class InOrder implements RedisScriptClient {
  /** When the request on its way was sent (`performance.now()`), or `undefined` when none is. */
  private sentAt: number | undefined;
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly client: UpstashLike,
    readonly defaultTimeoutMs: number,
  ) {}

  evalsha(sha1: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.send("evalsha", sha1, keys, args);
  }

  eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.send("eval", script, keys, args);
  }

  private send(command: Waiting["command"], first: string, keys: readonly string[], args: readonly string[]) {
    return new Promise<unknown>((resolve, reject) => {
      // The client copies keys and args into its command; it never writes them.
      this.waiting.push({ command, first, keys: keys as string[], args: args as string[], at: now(), resolve, reject });
      // Those sent in the same turn go together.
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          if (this.sentAt === undefined || now() - this.sentAt > this.defaultTimeoutMs) this.next();
        });
      }
    });
  }

  /** Sends what waits, in one request: alone as it is, several as a pipeline. */
  private next(): void {
    const at = now();
    const batch = this.waiting.filter((w) => at - w.at <= this.defaultTimeoutMs || (w.reject(GIVEN_UP), false));
    this.waiting = [];
    if (batch.length === 0) return void (this.sentAt = undefined);
    this.sentAt = at;
    const done = (): void => {
      if (this.sentAt !== at) return; // given up on: a later request went out meanwhile
      this.sentAt = undefined;
      if (this.waiting.length > 0) this.next();
    };
    if (batch.length === 1) {
      const { command, first, keys, args, resolve, reject } = batch[0]!;
      attempt(() => this.client[command](first, keys, args))
        .then(asReplied, asServerError)
        .then(resolve, reject)
        .finally(done);
      return;
    }
    attempt(() =>
      batch
        .reduce((p, { command, first, keys, args }) => p[command](first, keys, args), this.client.pipeline())
        .exec({ keepErrors: true }),
    )
      .then(
        (replies) => batch.forEach((w, i) => settle(w, replies[i])),
        (error: unknown) => {
          const failure = asError(error);
          batch.forEach((w) => w.reject(failure));
        },
      )
      .finally(done);
  }
}

/** `call()`'s promise; one that throws (a client in a bad state) rejects it, and the order goes on. */
function attempt<T>(call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(call()));
}

const now = (): number => performance.now();

/** The rejection of a command dropped before it was sent: its call has timed out meanwhile. */
const GIVEN_UP = new Error("The command waited past its timeout for the request before it; it was not sent");

/** One command's part of a pipeline's reply: `{ result }`, or `{ error }` with the server's reply. */
function settle(waiting: Waiting, reply: unknown): void {
  const { result, error } = (typeof reply === "object" && reply !== null ? reply : {}) as Record<string, unknown>;
  if (typeof error === "string" && error.length > 0)
    return waiting.reject(asError(Object.assign(new Error(error), { name: "UpstashError" })));
  if (result === undefined) return waiting.reject(new TypeError(`Unexpected reply from Upstash: ${String(reply)}`));
  waiting.resolve(asReplied(result));
}

/** {@link asServerError}, as a value. */
function asError(error: unknown): unknown {
  try {
    return asServerError(error);
  } catch (unwrapped) {
    return unwrapped;
  }
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
