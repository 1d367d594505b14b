/**
 * A Cloudflare Worker that calls OpenAI through `limiter.fetch()`, every isolate on one quota: a limiter per
 * request over a store made once per isolate (the store keeps nothing but which scripts Redis holds, so no
 * promise of one request is awaited by another). Tested in workerd (test/runtimes/runtimes.test.ts); see
 * docs/runtimes.md. In your own project, import from "llm-limiter" rather than "../../src/index.js".
 */
import { Limiter, WaitTimeoutError } from "../../src/index.js";
import type { RedisStore } from "../../src/redis/index.js";

/** The Worker's bindings: the key, and where OpenAI is (its API unless told otherwise). */
export interface Env {
  readonly OPENAI_API_KEY: string;
  readonly OPENAI_BASE_URL?: string;
}

/** What `ctx` of a Worker's `fetch` handler gives: keeps the isolate up for a promise after the response. */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The Worker, over the store `storeFor` makes once per isolate (a RedisStore on Redis over HTTP: see
 * docs/runtimes.md), with the quota of your OpenAI organization.
 */
export function openAIWorker(
  storeFor: (env: Env) => RedisStore,
  limits: { readonly rpm: number; readonly tpm?: number } = { rpm: 500, tpm: 200_000 },
) {
  let store: RedisStore | undefined;
  return {
    async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
      store ??= storeFor(env);
      // maxWaitMs: a request should not queue for long; its caller can retry a 429 later.
      const limiter = new Limiter({ ...limits, store, maxWaitMs: 2_000 });
      const question = await request.text();
      try {
        const openai = env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
        const response = await limiter.fetch()(`${openai}/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${env.OPENAI_API_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "gpt-4o-mini",
            max_tokens: 200,
            messages: [{ role: "user", content: question }],
          }),
        });
        return new Response(response.body, { status: response.status, headers: response.headers });
      } catch (error) {
        if (error instanceof WaitTimeoutError) return new Response("Busy, try again shortly", { status: 429 });
        throw error;
      } finally {
        // Once the answer has streamed out, the request's writes (its settle, header syncs, the credit it
        // booked ahead and did not use) finish before the isolate may stop: close() flushes and gives back.
        ctx.waitUntil(limiter.onIdle().then(() => limiter.close()));
      }
    },
  };
}
