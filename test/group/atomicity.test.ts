import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LimiterGroup } from "../../src/index.js";
import { installFakeTime } from "../fake-time.js";
import { numRuns } from "../properties/runs.js";

/** A token bucket written here apart from src: full at the start, refilling `limit` a minute up to `limit`. */
class ModelBucket {
  private level: number;
  private at = 0;

  constructor(private readonly limit: number) {
    this.level = limit;
  }

  levelAt(now: number): number {
    this.level = Math.min(this.limit, this.level + ((now - this.at) * this.limit) / 60_000);
    this.at = now;
    return this.level;
  }

  take(cost: number, now: number): void {
    this.level = this.levelAt(now) - cost;
  }
}

const ops = fc.array(
  fc.record({
    member: fc.nat(),
    cost: fc.integer({ min: 0, max: 1_000 }),
    gapMs: fc.integer({ min: 0, max: 3_000 }),
    tryOnly: fc.boolean(),
  }),
  { maxLength: 30 },
);

describe("LimiterGroup atomicity", () => {
  it("never admits over a member's budget or the shared one, and takes from both or from neither", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 100, max: 1_000 }), { minLength: 2, maxLength: 3 }),
        fc.integer({ min: 100, max: 2_000 }),
        ops,
        async (caps, sharedLimit, calls) => {
          const time = installFakeTime();
          try {
            const names = caps.map((_, i) => `m${i}`);
            const group = new LimiterGroup({
              models: Object.fromEntries(names.map((name, i) => [name, { tpm: caps[i]! }])),
              shared: { tpm: sharedLimit },
              initial: "full",
              arrivalDelayMs: 0,
              clock: time.clock,
            });
            const own = caps.map((cap) => new ModelBucket(cap));
            const shared = new ModelBucket(sharedLimit);
            const over: string[] = [];
            const admitted = (i: number, cost: number): void => {
              const now = time.clock.now();
              if (own[i]!.levelAt(now) < cost - 1e-6) over.push(`m${i} over its tpm at ${now}`);
              if (shared.levelAt(now) < cost - 1e-6) over.push(`m${i} over the shared tpm at ${now}`);
              own[i]!.take(cost, now);
              shared.take(cost, now);
            };
            const levelsAgree = (): void => {
              const now = time.clock.now();
              const { members, shared: pooled } = group.snapshot();
              for (const [i, name] of names.entries()) {
                expect(Math.abs(members[name]!.dimensions.tpm!.available - own[i]!.levelAt(now))).toBeLessThanOrEqual(
                  1,
                );
              }
              expect(Math.abs(pooled.tpm!.available - shared.levelAt(now))).toBeLessThanOrEqual(1);
            };
            const pending: Promise<void>[] = [];
            for (const call of calls) {
              const i = call.member % caps.length;
              const cost = Math.min(call.cost, caps[i]!, sharedLimit);
              const member = group.for(names[i]!);
              if (call.tryOnly) {
                const reservation = member.tryAcquire(cost);
                if (reservation) {
                  admitted(i, cost);
                  reservation.release();
                }
              } else {
                pending.push(
                  member.acquire(cost).then((reservation) => {
                    admitted(i, cost);
                    reservation.release();
                  }),
                );
              }
              await time.at(time.clock.now() + call.gapMs);
              levelsAgree();
            }
            // Every call fits a full bucket: within a minute each, all are admitted.
            await time.at(time.clock.now() + 60_000 * (calls.length + 1));
            await Promise.all(pending);
            levelsAgree();
            expect(over).toEqual([]);
            await group.close();
          } finally {
            time.timers.uninstall();
          }
        },
      ),
      { numRuns: numRuns(100) },
    );
  }, 60_000);
});
