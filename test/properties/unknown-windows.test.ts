import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const time = useFakeTime();

const MINUTE = 60_000;

/** A reset-less reading of one budget under OpenAI's names or the bare ones, as any sender may send it. */
const reading = fc.record({
  names: fc.constantFrom("-requests", "-tokens", ""),
  limit: fc.integer({ min: 1, max: 1_000_000 }),
  used: fc.double({ min: 0, max: 1, noNaN: true }),
  reset: fc.constantFrom(undefined, "0s", "0"),
});

/**
 * Responses no more than a window apart, 429s with hints no longer than a window: nothing
 * a shorter window cannot explain.
 */
const step = fc.record({
  readings: fc.array(reading, { maxLength: 3 }),
  advance: fc.nat({ max: MINUTE }),
  rejected: fc.option(
    fc.record({ retryAfter: fc.integer({ min: 0, max: 60 }), type: fc.constantFrom("requests", "tokens", undefined) }),
    { nil: undefined },
  ),
});

describe("an unknown window never holds traffic back for longer than a minute", () => {
  it("reset-less headers from any sender, with nothing a minute cannot explain, learn no budget over a minute", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), fc.boolean(), async (steps, configured) => {
        const limiter = new Limiter(configured ? { rpm: 600, tpm: 100_000 } : {});
        for (const { readings, advance, rejected } of steps) {
          await time.timers.tickAsync(advance);
          limiter.tryAcquire(1)?.release();
          const headers: Record<string, string> = {};
          for (const { names, limit, used, reset } of readings) {
            headers[`x-ratelimit-limit${names}`] = String(limit);
            headers[`x-ratelimit-remaining${names}`] = String(Math.floor(limit * (1 - used)));
            if (reset !== undefined) headers[`x-ratelimit-reset${names}`] = reset;
          }
          if (rejected) headers["retry-after"] = String(rejected.retryAfter);
          limiter.sync(headers, rejected ? { status: 429, body: { error: { type: rejected.type } } } : undefined);
          for (const [name, d] of Object.entries(limiter.snapshot().dimensions)) {
            if (typeof d === "object" && d !== null && "windowMs" in d)
              expect(d.windowMs, name).toBeLessThanOrEqual(MINUTE);
          }
        }
        limiter.close();
      }),
      { numRuns: numRuns(200) },
    );
  });
});
