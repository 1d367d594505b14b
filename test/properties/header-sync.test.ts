import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, type LimiterSnapshot } from "../../src/index.js";
import type { ProviderName } from "../../src/headers/index.js";
import { formatGoDuration } from "../../src/testing/go-duration.js";
import { useFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const time = useFakeTime();

const NAMES = [
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-tokens",
  "x-ratelimit-limit-project-tokens",
  "x-ratelimit-remaining-project-tokens",
  "anthropic-ratelimit-requests-limit",
  "anthropic-ratelimit-requests-remaining",
  "anthropic-ratelimit-input-tokens-limit",
  "anthropic-ratelimit-input-tokens-remaining",
  "anthropic-ratelimit-input-tokens-reset",
  "anthropic-ratelimit-tokens-limit",
  "anthropic-ratelimit-tokens-remaining",
  "x-ratelimit-limit-requests-day",
  "x-ratelimit-remaining-tokens-minute",
  "ratelimit-policy",
  "ratelimit",
  "retry-after",
  "retry-after-ms",
  "date",
];

const value = fc.oneof(
  fc.nat({ max: 10_000_000 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom(
    "1s",
    "6m0s",
    "2m59.56s",
    "-5",
    "NaN",
    "Infinity",
    "1e400",
    "2025-02-24T22:25:32Z",
    "",
    "  7 ",
    '"q";q=100;w=60',
  ),
  fc.string({ maxLength: 30 }),
);

const arbitraryHeaders = fc.dictionary(fc.constantFrom(...NAMES), value, { maxKeys: 10 });
const anyProvider = fc.option(
  fc.constantFrom<ProviderName>(
    "openai",
    "anthropic",
    "groq",
    "azure",
    "cerebras",
    "ietf",
    "together",
    "mistral",
    "openrouter",
  ),
  { nil: undefined },
);
const use = fc.record({ input: fc.nat({ max: 3_000 }), output: fc.nat({ max: 3_000 }) });
const CONFIGURED = [
  ["rpm", 600],
  ["tpm", 100_000],
  ["itpm", 50_000],
] as const;
const OPTIONS = { rpm: 600, tpm: 100_000, itpm: 50_000, concurrency: 8, onWarning: () => {} };

type Headers = Record<string, string>;

interface Step {
  /**
   * The response's headers and the dialect to read them in, made when the response is read (Anthropic's resets are
   * absolute).
   */
  response: () => { headers: Headers; provider: ProviderName | undefined };
  status: number;
  advance: number;
  use: { input: number; output: number };
}

/** A learned limit may make the call too large: then it is simply not made. */
function tryCall(
  limiter: Limiter,
  amount: { input: number; output: number },
): ReturnType<Limiter["tryAcquire"]> | undefined {
  try {
    return limiter.tryAcquire(amount);
  } catch {
    return undefined;
  }
}

/** Every number finite, every capacity positive, no limit nor level above the configured limit. */
function expectSane(snapshot: LimiterSnapshot): void {
  for (const [name, configured] of CONFIGURED) {
    const d = snapshot.dimensions[name]!;
    expect(d.limit).toBeLessThanOrEqual(configured);
    expect(d.capacity).toBeLessThanOrEqual(configured);
    expect(d.available).toBeLessThanOrEqual(d.capacity);
  }
  for (const [name, d] of Object.entries({ ...snapshot.dimensions, concurrency: snapshot.concurrency })) {
    if (typeof d !== "object" || d === null) continue;
    for (const n of Object.values(d)) expect(Number.isFinite(n), `${name}: ${JSON.stringify(d)}`).toBe(true);
    if ("capacity" in d) expect(d.capacity).toBeGreaterThan(0);
  }
  expect(snapshot.concurrency!.limit).toBeLessThanOrEqual(OPTIONS.concurrency);
}

/**
 * Runs `steps` through a limiter and a twin that makes the same calls but
 * hears no headers (its levels are the limiter's own count), checking
 * `after(limiter, twin)` after every sync.
 */
async function replay(
  steps: readonly Step[],
  after: (limiter: LimiterSnapshot, twin: LimiterSnapshot) => void,
): Promise<void> {
  const limiter = new Limiter(OPTIONS);
  const twin = new Limiter(OPTIONS);
  for (const step of steps) {
    await time.timers.tickAsync(step.advance);
    const admitted = tryCall(limiter, step.use);
    if (admitted) {
      admitted.release();
      twin.tryAcquire(step.use)!.release();
    }
    const { headers, provider } = step.response();
    limiter.sync(headers, { status: step.status, ...(provider ? { provider } : {}) });
    after(limiter.snapshot(), twin.snapshot());
  }
  limiter.close();
  twin.close();
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * One budget as a continuous bucket reports it: `remaining` whole units
 * (Anthropic's token counts rounded to the thousand) and the time to refill
 * what is missing, `(limit − remaining) × window / limit`, in the dialect's
 * format (shared/providers.md).
 */
const bucketBudget = fc
  .record({ limit: fc.integer({ min: 1, max: 2_000_000 }), used: fc.double({ min: 0, max: 1, noNaN: true }) })
  .map(({ limit, used }) => {
    const remaining = Math.floor(limit * (1 - used));
    return { limit, remaining, toFull: (windowMs: number) => ((limit - remaining) * windowMs) / limit };
  });
type Budget = typeof bucketBudget extends fc.Arbitrary<infer B> ? B : never;

function openAITriple(suffix: string, budget: Budget, windowMs: number): Headers {
  return {
    [`x-ratelimit-limit-${suffix}`]: String(budget.limit),
    [`x-ratelimit-remaining-${suffix}`]: String(budget.remaining),
    [`x-ratelimit-reset-${suffix}`]: formatGoDuration(budget.toFull(windowMs)),
  };
}

function anthropicTriple(kind: string, budget: Budget, roundToThousand: boolean): Headers {
  const remaining = roundToThousand ? Math.round(budget.remaining / 1_000) * 1_000 : budget.remaining;
  const full = Math.ceil((Date.now() + budget.toFull(MINUTE)) / 1_000) * 1_000;
  return {
    [`anthropic-ratelimit-${kind}-limit`]: String(budget.limit),
    [`anthropic-ratelimit-${kind}-remaining`]: String(Math.min(budget.limit, remaining)),
    [`anthropic-ratelimit-${kind}-reset`]: new Date(full).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}

const present = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

/**
 * Headers of one response from a continuous provider, built when the response is read (resets are absolute for
 * Anthropic).
 */
const bucketResponse = fc.oneof(
  fc
    .record({
      dialect: fc.constant("openai" as const),
      requests: present(bucketBudget),
      tokens: present(bucketBudget),
      project: present(bucketBudget),
    })
    .map((r) => () => ({
      provider: r.dialect,
      headers: {
        ...(r.requests && openAITriple("requests", r.requests, MINUTE)),
        ...(r.tokens && openAITriple("tokens", r.tokens, MINUTE)),
        ...(r.project && openAITriple("project-tokens", r.project, MINUTE)),
      },
    })),
  fc
    .record({ dialect: fc.constant("groq" as const), requests: present(bucketBudget), tokens: present(bucketBudget) })
    .map((r) => () => ({
      provider: r.dialect,
      headers: {
        ...(r.requests && openAITriple("requests", r.requests, DAY)),
        ...(r.tokens && openAITriple("tokens", r.tokens, MINUTE)),
      },
    })),
  fc
    .record({
      dialect: fc.constant("anthropic" as const),
      requests: present(bucketBudget),
      input: present(bucketBudget),
      tokens: present(bucketBudget),
      dated: fc.boolean(),
    })
    .map((r) => () => ({
      provider: r.dialect,
      headers: {
        ...(r.requests && anthropicTriple("requests", r.requests, false)),
        ...(r.input && anthropicTriple("input-tokens", r.input, true)),
        ...(r.tokens && anthropicTriple("tokens", r.tokens, true)),
        ...(r.dated ? { date: new Date(Date.now()).toUTCString() } : {}),
      },
    })),
);
const retryHints = fc.dictionary(fc.constantFrom("retry-after", "retry-after-ms"), value, { maxKeys: 2 });

describe("invariant 6: headers never make it worse", () => {
  it("arbitrary headers, windows included: nothing throws, every number stays finite, no limit nor level rises above the configured limit", async () => {
    const response = fc.record({ headers: arbitraryHeaders, provider: anyProvider }).map((r) => () => r);
    const step = fc.record({
      response,
      status: fc.constantFrom(200, 200, 429, 503),
      advance: fc.nat({ max: 5_000 }),
      use,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), (steps) => replay(steps, (after) => expectSane(after))),
      { numRuns: numRuns(150) },
    );
  });

  /*
   * Why these streams cannot show a fixed window (src/fixed-window.ts): every
   * reading carries a reset, so the level-jump test (readings without one)
   * never runs; the provider is never Azure; and every reset is a continuous
   * bucket's, off the bucket relation by no more than its format's rounding
   * (Go durations to the ms, RFC 3339 up to the second plus a `Date` floored
   * to the second, Anthropic's token counts to the thousand), which is within
   * one reading's slack in src/reset-evidence.ts. A pair of such readings
   * therefore always "fits a bucket" and is never window evidence. The
   * property also checks that no window ever shows.
   */
  it("streams from a continuous provider: sync never lifts a level above the limiter's own count", async () => {
    const response = fc.tuple(bucketResponse, retryHints).map(([made, hints]) => () => {
      const { provider, headers } = made();
      return { provider, headers: { ...headers, ...hints } };
    });
    const step = fc.record({
      response,
      status: fc.constantFrom(200, 200, 429, 503),
      advance: fc.nat({ max: 5_000 }),
      use,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 16 }), (steps) =>
        replay(steps, (after, own) => {
          expectSane(after);
          for (const [name, d] of Object.entries(after.dimensions)) {
            if (typeof d === "object" && d !== null)
              expect(d, `${name} shows a window`).not.toHaveProperty("resetInMs");
          }
          for (const [name] of CONFIGURED)
            expect(after.dimensions[name]!.available).toBeLessThanOrEqual(own.dimensions[name]!.available + 1e-6);
        }),
      ),
      { numRuns: numRuns(150) },
    );
  });
});
