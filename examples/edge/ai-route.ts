/**
 * A Next.js route on the Edge runtime that answers with the AI SDK, every instance on one quota: a limiter per
 * request over a store made once per instance, behind `rateLimitMiddleware`. Tested in Vercel's edge-runtime
 * (test/runtimes/runtimes.test.ts); see docs/runtimes.md. In your own project, import from "llm-limiter" and
 * "llm-limiter/ai" rather than "../../src/….js".
 */
import type { OpenAIProvider } from "@ai-sdk/openai";
import { generateText, wrapLanguageModel } from "ai";
import { rateLimitMiddleware } from "../../src/ai/index.js";
import { Limiter, WaitTimeoutError } from "../../src/index.js";
import type { RedisStore } from "../../src/redis/index.js";

/** What the route is made of. */
export interface AiRouteParts {
  /** Makes the shared store, once per instance (a RedisStore on Redis over HTTP: see docs/runtimes.md). */
  readonly store: () => RedisStore;
  /** The AI SDK's OpenAI provider, `createOpenAI({ apiKey })`. */
  readonly openai: OpenAIProvider;
  /** Keeps the function up for a promise after the response: `waitUntil` of `@vercel/functions`. */
  readonly waitUntil: (promise: Promise<unknown>) => void;
  /** Your organization's quota on the model. */
  readonly limits?: { readonly rpm: number; readonly tpm?: number };
}

/** `export const POST = aiRoute({ … })` in `app/api/answer/route.ts`, beside `export const runtime = "edge"`. */
export function aiRoute(parts: AiRouteParts): (request: Request) => Promise<Response> {
  let store: RedisStore | undefined;
  return async (request) => {
    store ??= parts.store();
    const limiter = new Limiter({ ...(parts.limits ?? { rpm: 500, tpm: 200_000 }), store, maxWaitMs: 2_000 });
    const model = wrapLanguageModel({ model: parts.openai("gpt-4o-mini"), middleware: rateLimitMiddleware(limiter) });
    try {
      const { text } = await generateText({ model, prompt: await request.text(), maxOutputTokens: 200 });
      return Response.json({ text });
    } catch (error) {
      // The middleware rethrows the limiter's refusal as it came.
      if (error instanceof WaitTimeoutError) return new Response("Busy, try again shortly", { status: 429 });
      throw error;
    } finally {
      // The request's writes (its settle, header syncs, unused credit) finish after the response is sent.
      parts.waitUntil(limiter.onIdle().then(() => limiter.close()));
    }
  };
}
