import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { wrapLanguageModel } from "ai";
import type { LanguageModelMiddleware } from "ai";
import type { Estimate, Limiter, Reservation, Usage } from "../../src/index.js";
import type { ProviderServer } from "../../src/testing/index.js";
import type { ModelCallParams } from "../../src/ai/index.js";

/** One admission as the middleware made it: the estimate, every usage it settled, whether it was released. */
export interface Admission {
  readonly estimate: Estimate;
  readonly settled: Usage[];
  readonly reservation: Reservation;
}

/**
 * A limiter that records what the middleware does with each reservation, in admission order, and passes
 * everything on to `limiter`.
 */
export function recording(limiter: Limiter): { limiter: Limiter; admissions: Admission[] } {
  const admissions: Admission[] = [];
  const watch = (reservation: Reservation): Reservation => {
    const admission: Admission = { estimate: reservation.estimate, settled: [], reservation };
    admissions.push(admission);
    return new Proxy(reservation, {
      get(target, key) {
        if (key === "settle") {
          return (used: Usage) => {
            admission.settled.push(used);
            target.settle(used);
          };
        }
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  const wrapped = {
    // What `fn` resolves to is settled by `run`: recorded as a settle.
    run: ((estimate, fn, options) =>
      limiter.run(
        estimate,
        async (reservation) => {
          const watched = watch(reservation);
          const outcome = await fn(watched);
          if (outcome.used !== undefined)
            admissions.find((a) => a.reservation === reservation)?.settled.push(outcome.used);
          return outcome;
        },
        options,
      )) as Limiter["run"],
    acquire: ((estimate, options) => limiter.acquire(estimate, options).then(watch)) as Limiter["acquire"],
  };
  return { limiter: wrapped as unknown as Limiter, admissions };
}

/** A `fetch` that counts requests on the wire and keeps every request's headers. */
export function watchedFetch(): { fetch: typeof fetch; onTheWire: () => number; sent: Headers[] } {
  let onTheWire = 0;
  const sent: Headers[] = [];
  return {
    sent,
    onTheWire: () => onTheWire,
    fetch: async (input, init) => {
      sent.push(new Headers(init?.headers));
      onTheWire++;
      try {
        return await fetch(input, init);
      } finally {
        onTheWire--;
      }
    },
  };
}

/** The OpenAI provider's chat-completions model, wrapped. */
export function openAIChat(
  server: ProviderServer,
  middleware: LanguageModelMiddleware,
  fetch?: typeof globalThis.fetch,
) {
  const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "test-key", fetch });
  return wrapLanguageModel({ model: openai.chat("gpt-sim"), middleware });
}

/** The OpenAI provider's default model, `openai(id)`, which calls the Responses API, wrapped. */
export function openAIResponses(
  server: ProviderServer,
  middleware: LanguageModelMiddleware,
  fetch?: typeof globalThis.fetch,
) {
  const openai = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: "test-key", fetch });
  return wrapLanguageModel({ model: openai("gpt-sim"), middleware });
}

/** The Anthropic provider's messages model, wrapped. */
export function anthropicMessages(
  server: ProviderServer,
  middleware: LanguageModelMiddleware,
  fetch?: typeof globalThis.fetch,
) {
  const anthropic = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "test-key", fetch });
  return wrapLanguageModel({ model: anthropic("claude-sim"), middleware });
}

/** A prompt's user message, as the AI SDK hands it to a model. */
export function userMessage(text: string): ModelCallParams["prompt"][number] {
  return { role: "user", content: [{ type: "text", text }] };
}

/**
 * A `fetch` whose response body passes its first `events` server-sent events, however the network chunked them,
 * then ends as `then` says: `"stall"` waits until the request's signal aborts and fails with its reason (a
 * stream still running when its consumer stops), `"fail"` fails at once (a dropped connection).
 */
export function cutAfterEvents(events: number, then: "stall" | "fail"): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.ok || !response.body) return response;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const encoder = new TextEncoder();
    let buffered = "";
    let passed = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (passed < events) {
          let end = buffered.indexOf("\n\n");
          while (end < 0) {
            const next = await reader.read();
            if (next.done) throw new Error(`the body ended after ${passed} events`);
            buffered += next.value;
            end = buffered.indexOf("\n\n");
          }
          controller.enqueue(encoder.encode(buffered.slice(0, end + 2)));
          buffered = buffered.slice(end + 2);
          passed++;
          return;
        }
        const signal = init?.signal;
        if (then === "stall")
          await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
        await reader.cancel();
        controller.error(then === "stall" ? signal?.reason : new TypeError("terminated"));
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
