import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, type ProviderName } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

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
  fc.constantFrom("1s", "6m0s", "2m59.56s", "-5", "NaN", "Infinity", "1e400", "2025-02-24T22:25:32Z", "", "  7 ", '"q";q=100;w=60'),
  fc.string({ maxLength: 30 }),
);

const headers = fc.dictionary(fc.constantFrom(...NAMES), value, { maxKeys: 10 });
const provider = fc.option(fc.constantFrom<ProviderName>("openai", "anthropic", "groq", "azure", "cerebras", "ietf", "together", "mistral", "openrouter"), { nil: undefined });

describe("invariant 6: headers never make it worse", () => {
  it("sync never lifts a level above the limiter's own count nor a limit above the configured one, and keeps every number finite", async () => {
    const use = fc.record({ input: fc.nat({ max: 3_000 }), output: fc.nat({ max: 3_000 }) });
    const step = fc.record({ headers, provider, status: fc.constantFrom(200, 200, 429, 503), advance: fc.nat({ max: 5_000 }), use });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (responses) => {
        const options = { rpm: 600, tpm: 100_000, itpm: 50_000, concurrency: 8, onWarning: () => {} };
        // The twin does the same calls and hears no headers: its levels are the own count.
        const limiter = new Limiter(options);
        const twin = new Limiter(options);
        for (const response of responses) {
          await time.timers.tickAsync(response.advance);
          // A learned limit may make the call too large: then it is simply not made.
          const admitted = (() => {
            try {
              return limiter.tryAcquire(response.use);
            } catch {
              return undefined;
            }
          })();
          if (admitted) {
            admitted.release();
            twin.tryAcquire(response.use)!.release();
          }
          limiter.sync(response.headers, { status: response.status, ...(response.provider ? { provider: response.provider } : {}) });
          const after = limiter.snapshot();
          const own = twin.snapshot();
          for (const [name, configured] of [["rpm", 600], ["tpm", 100_000], ["itpm", 50_000]] as const) {
            const a = after[name]!;
            expect(a.limit).toBeLessThanOrEqual(configured);
            expect(a.capacity).toBeLessThanOrEqual(configured);
            expect(a.available).toBeLessThanOrEqual(own[name]!.available + 1e-6);
          }
          for (const [name, d] of Object.entries(after)) {
            if (typeof d !== "object" || d === null) continue;
            for (const n of Object.values(d)) expect(Number.isFinite(n), `${name}: ${JSON.stringify(d)}`).toBe(true);
            if ("capacity" in d) expect(d.capacity).toBeGreaterThan(0);
          }
          expect(after.concurrency!.limit).toBeLessThanOrEqual(8);
        }
        limiter.close();
        twin.close();
      }),
      { numRuns: 150 },
    );
  });
});
