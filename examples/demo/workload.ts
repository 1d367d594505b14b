import { between, seededRandom } from "../../src/testing/random.js";

/**
 * The demo's workload: one service's traffic over about four minutes, drawn
 * from a seeded generator so every run (and both clients) see the same calls.
 */

/** The key's quota, as the provider enforces it and the limiter is configured. */
export const QUOTA = { rpm: 500, tpm: 200_000 } as const;

/** Milliseconds from admission to the full response: time grows with the answer. */
export const latencyMs = (call: { actual: number }): number => 300 + 15 * call.actual;

export type Kind = "chat" | "long" | "batch";
export const KINDS: readonly Kind[] = ["chat", "long", "batch"];

/** How each kind arrives, for the demo's header; `buildWorkload` is what makes it so. */
export const ARRIVALS: Readonly<Record<Kind, string>> = {
  chat: "bursts of 30-60 calls every 20 s",
  long: "document Q&A, one every ~8 s",
  batch: "one job of 200 calls at 1:00",
};

/** One call: when it arrives (ms from start), what it asks for, and how long its answer turns out. */
export interface Call {
  readonly id: number;
  readonly kind: Kind;
  readonly at: number;
  readonly prompt: number;
  readonly maxTokens: number;
  readonly actual: number;
}

/**
 * Three kinds of traffic on one key:
 * - chat: a burst of 30–60 short calls every 20 s (users arriving together), max_tokens 512;
 * - long: a steady trickle of 6k–20k-token contexts (document Q&A), max_tokens 1024;
 * - batch: 200 calls enqueued at once at t = 60 s with max_tokens 4096 but short answers,
 *   so each reserves about 4× the tokens it uses until it settles.
 */
export function buildWorkload(seed: number): Call[] {
  const random = seededRandom(seed);
  const calls: Omit<Call, "id">[] = [];

  for (let burst = 0; burst * 20_000 <= 220_000; burst++) {
    const size = between(random, 30, 60);
    for (let i = 0; i < size; i++) {
      // Squaring skews prompts short, with a tail of long conversations.
      const prompt = 150 + Math.floor(random() ** 2 * 1_800);
      calls.push({
        kind: "chat",
        at: burst * 20_000 + between(random, 0, 3_000),
        prompt,
        maxTokens: 512,
        actual: between(random, 40, 400),
      });
    }
  }

  // Poisson arrivals, mean gap 8 s.
  for (let at = 0; ;) {
    at += Math.round(-Math.log(1 - random()) * 8_000);
    if (at > 240_000) break;
    calls.push({
      kind: "long",
      at,
      prompt: between(random, 6_000, 20_000),
      maxTokens: 1_024,
      actual: between(random, 150, 700),
    });
  }

  for (let i = 0; i < 200; i++) {
    calls.push({
      kind: "batch",
      at: 60_000,
      prompt: between(random, 400, 1_500),
      maxTokens: 4_096,
      actual: between(random, 60, 600),
    });
  }

  // Stable sort: equal arrival times keep generation order, so the run is reproducible.
  return calls.sort((a, b) => a.at - b.at).map((call, id) => ({ id, ...call }));
}

/** Tokens a call actually costs the key once reconciled. */
export const usedTokens = (call: Call): number => call.prompt + call.actual;
