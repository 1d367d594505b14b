/**
 * A Durable Object holding the limiter: one object per quota key keeps it in memory and calls OpenAI through
 * its `limiter.fetch()`; the Worker sends every call there, so every isolate shares the object's one quota
 * without a store. Tested in workerd (test/runtimes/runtimes.test.ts); see docs/runtimes.md. In your own
 * project, import from "llm-limiter" rather than "../../src/index.js".
 */
import { Limiter, type LimiterOptions } from "../../src/index.js";
import type { Env } from "./openai-worker.js";

/** The binding of the object's namespace, as a Worker sees it (wrangler: `durable_objects.bindings`). */
interface LimiterNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** The Durable Object class (export it from the Worker's module, named in wrangler's config). */
export function limiterObject(options: LimiterOptions = { rpm: 500, tpm: 200_000 }) {
  return class LimiterObject {
    readonly env: Env;
    // In the object, for its lifetime: the object's requests share it, as they share the object.
    readonly limiter: Limiter;
    constructor(_state: unknown, env: Env) {
      this.env = env;
      this.limiter = new Limiter({
        ...options,
        // Built per object on purpose: the warning about per-isolate buckets does not apply here.
        onWarning: (warning) => {
          if (warning.name !== "IsolatedLimiterWarning") console.warn(warning);
        },
      });
    }

    async fetch(request: Request): Promise<Response> {
      const openai = this.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
      const response = await this.limiter.fetch()(`${openai}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.env.OPENAI_API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          max_tokens: 200,
          messages: [{ role: "user", content: await request.text() }],
        }),
      });
      return new Response(response.body, { status: response.status, headers: response.headers });
    }
  };
}

/** The Worker: every call to the one object of the key "openai". */
export const limitedWorker = {
  fetch(request: Request, env: { readonly LIMITER: LimiterNamespace }): Promise<Response> {
    return env.LIMITER.get(env.LIMITER.idFromName("openai")).fetch(request);
  },
};
