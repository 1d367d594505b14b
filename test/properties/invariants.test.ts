import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  LimiterClosedError,
  RequestTooLargeError,
  WaitTimeoutError,
  type CustomLimit,
  type Estimate,
} from "../../src/index.js";
import type { Unit } from "../../src/core/limits.js";
import {
  DAY,
  Harness,
  MINUTE,
  SHORTHAND_SHAPES,
  type Change,
  type Config,
  type Op,
  type Scenario,
  type Shorthand,
} from "./harness/index.js";
import { numRuns } from "./runs.js";

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/** Whether input and output tokens are metered (then every estimate is `{ input, output }`). */
type Split = boolean;

const CUSTOM = ["burst", "slow"] as const;

function shorthandsOf(split: Split): Shorthand[] {
  return split ? ["rpm", "tpm", "rpd", "tpd", "itpm", "otpm"] : ["rpm", "tpm", "rpd", "tpd"];
}

function unitsOf(split: Split): Unit[] {
  return split ? ["requests", "tokens", "input", "output"] : ["requests", "tokens"];
}

/** Small enough that buckets run dry within a scenario. */
const limitFor = (unit: Unit): fc.Arbitrary<number> =>
  unit === "requests" ? fc.integer({ min: 1, max: 20 }) : fc.integer({ min: 200, max: 5000 });

const capacityFor = (unit: Unit): fc.Arbitrary<number> =>
  unit === "requests" ? fc.integer({ min: 1, max: 40 }) : fc.integer({ min: 500, max: 10_000 });

/** `undefined` about half the time (fc.option would give it only one time in five). */
const sometimes = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof(fc.constant(undefined), arb);

/** Burst sizes on either scale, for a custom dimension whose unit may have changed (too small ones refuse waiters). */
const anyCapacity = fc.oneof(capacityFor("requests"), capacityFor("tokens"));

/** Custom dimensions: "burst" refills over short windows, "slow" over long ones; replacing one may change its unit. */
function customSpec(split: Split, name: (typeof CUSTOM)[number]): fc.Arbitrary<CustomLimit> {
  const windowMs = name === "burst" ? fc.integer({ min: 100, max: 5_000 }) : fc.integer({ min: MINUTE, max: DAY });
  return fc
    .constantFrom(...unitsOf(split))
    .chain((unit) =>
      fc.record(
        { unit: fc.constant(unit), limit: limitFor(unit), windowMs, capacity: capacityFor(unit) },
        { requiredKeys: ["unit", "limit", "windowMs"] },
      ),
    );
}

/** A burst size on the scale of the dimension's unit (custom ones take either). */
function capacityOf(name: string): fc.Arbitrary<number> {
  return name in SHORTHAND_SHAPES ? capacityFor(SHORTHAND_SHAPES[name as Shorthand].unit) : anyCapacity;
}

/** Custom dimensions carry their own burst size; overrides here are for the shorthands. */
function config(split: Split): fc.Arbitrary<Config> {
  const names = shorthandsOf(split);
  return fc
    .record({
      shorthands: fc.record(Object.fromEntries(names.map((name) => [name, limitFor(SHORTHAND_SHAPES[name].unit)])), {
        requiredKeys: [],
      }),
      custom: fc.record({ burst: customSpec(split, "burst"), slow: customSpec(split, "slow") }, { requiredKeys: [] }),
      capacity: fc.record(Object.fromEntries(names.map((name) => [name, capacityOf(name)])), { requiredKeys: [] }),
      concurrency: sometimes(fc.integer({ min: 1, max: 4 })),
    })
    .map(({ shorthands, custom, capacity, concurrency }): Config => {
      // Burst sizes only for configured dimensions (the other case is a setLimits error, exercised there).
      const configured = new Set([...Object.keys(shorthands), ...Object.keys(custom)]);
      return {
        shorthands: shorthands as Config["shorthands"],
        custom,
        capacity: Object.fromEntries(
          Object.entries(capacity as Record<string, number>).filter(([name]) => configured.has(name)),
        ),
        concurrency,
      };
    });
}

/** A fraction in [min, max], in thousandths: fc.double favours extremes and subnormals, this spreads evenly. */
const fraction = (min: number, max: number): fc.Arbitrary<number> =>
  fc.integer({ min: Math.round(min * 1000), max: Math.round(max * 1000) }).map((n) => n / 1000);

const initial = fc.oneof(fc.constant("full" as const), fc.constant("empty" as const), fraction(0, 1));

/** Mostly small next to the buckets, some close to or over a capacity, some fractional (float refill arithmetic). */
const tokens = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 200 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 5000 }) },
  { weight: 2, arbitrary: fraction(0, 300) },
);

function amount(split: Split): fc.Arbitrary<Estimate> {
  const parts = fc.record({ input: tokens, output: tokens });
  return split ? parts : fc.oneof(tokens, parts);
}

/** A reported usage: mostly like an estimate, sometimes absurd (a proxy's or SDK's), which settle caps. */
function usage(split: Split): fc.Arbitrary<Estimate> {
  const absurd = fc.constantFrom(1e6, 1e20, 1e300, Number.MAX_VALUE);
  const huge = fc.oneof(tokens, absurd);
  return fc.oneof(
    { weight: 6, arbitrary: amount(split) },
    {
      weight: 1,
      arbitrary: split
        ? fc.record({ input: huge, output: huge })
        : fc.oneof(absurd, fc.record({ input: huge, output: huge })),
    },
  );
}

/** A multiple of the wait the model expects: deadlines that race admissions. */
const patience = fraction(0, 3).map((p) => ({ patience: p }));

/** Absent about half the time; then 0, short, long, or relative to the expected wait. */
const maxWaitMs = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 10 * MINUTE }) },
  { weight: 2, arbitrary: patience },
);

/** Small steps, steps across refills, and jumps of days (that also cross timer hops). */
const step = fc.oneof(
  fc.integer({ min: 0, max: 50 }),
  fc.integer({ min: 0, max: 5_000 }),
  fc.integer({ min: 0, max: 2 * MINUTE }),
  fc.integer({ min: 0, max: 3 * DAY }),
);

/**
 * Raise, lower, add or remove (null) a dimension; set or drop a burst size (also for a missing dimension: an error);
 * change concurrency.
 */
function change(split: Split): fc.Arbitrary<Change> {
  return fc.oneof(
    fc.constantFrom(...shorthandsOf(split)).chain((name) =>
      fc.record({
        kind: fc.constant("limit" as const),
        name: fc.constant(name),
        value: fc.option(limitFor(SHORTHAND_SHAPES[name].unit), { nil: null }),
      }),
    ),
    fc.constantFrom(...CUSTOM).chain((name) =>
      fc.record({
        kind: fc.constant("custom" as const),
        name: fc.constant(name),
        spec: fc.option(customSpec(split, name), { nil: null }),
      }),
    ),
    fc.constantFrom(...shorthandsOf(split), ...CUSTOM).chain((name) =>
      fc.record({
        kind: fc.constant("capacity" as const),
        name: fc.constant(name),
        value: fc.option(capacityOf(name), { nil: null }),
      }),
    ),
    fc.record({
      kind: fc.constant("concurrency" as const),
      value: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
    }),
  );
}

type Weights = Partial<Record<Op["kind"], number>>;

function op(split: Split, weights: Weights, waits = maxWaitMs): fc.Arbitrary<Op> {
  const kinds: { [K in Op["kind"]]: fc.Arbitrary<Extract<Op, { kind: K }>> } = {
    arrive: fc.record({
      kind: fc.constant("arrive" as const),
      estimate: amount(split),
      abortable: fc.boolean(),
      maxWaitMs: waits,
    }),
    advance: fc.record({ kind: fc.constant("advance" as const), ms: step }),
    settle: fc.record({ kind: fc.constant("settle" as const), pick: fc.nat(), used: usage(split) }),
    refund: fc.record({ kind: fc.constant("refund" as const), pick: fc.nat() }),
    release: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
    abort: fc.record({ kind: fc.constant("abort" as const), pick: fc.nat() }),
    setLimits: fc.record({ kind: fc.constant("setLimits" as const), change: change(split) }),
    close: fc.constant({ kind: "close" as const }),
  };
  const entries = Object.entries(weights) as [Op["kind"], number][];
  return fc.oneof(...entries.map(([kind, weight]) => ({ arbitrary: kinds[kind] as fc.Arbitrary<Op>, weight })));
}

function scenario(weights: Weights, waits = maxWaitMs): fc.Arbitrary<Scenario> {
  return fc.boolean().chain((split) =>
    fc.record({
      config: config(split),
      initial,
      ops: fc.array(op(split, weights, waits), { minLength: 5, maxLength: 40, size: "max" }),
    }),
  );
}

const everything: Weights = { arrive: 5, advance: 4, settle: 3, refund: 1, release: 3, abort: 1, setLimits: 1 };

/**
 * A failure stops shrinking in time to be reported before vitest's 30 s timeout (which would leave fake timers
 * installed).
 */
const runs = { numRuns: numRuns(150), interruptAfterTimeLimit: 20_000 };

// ---------------------------------------------------------------------------
// Properties. The harness checks every invariant at every admission and step
// (see harness/); the properties differ in what their scenarios stress, and
// some add an end-to-end claim about the outcome.
// ---------------------------------------------------------------------------

describe("invariants of shared/design.md over random scenarios", () => {
  it("1 + 3: never over, and the accounting is conserved, through settles, refunds, releases, setLimits and clock steps", async () => {
    await fc.assert(
      fc.asyncProperty(scenario(everything), (s) => Harness.run(s)),
      runs,
    );
  });

  it("1 + 3 across setLimits: raising, lowering, adding and removing dimensions while calls wait and are in flight", async () => {
    await fc.assert(
      fc.asyncProperty(scenario({ arrive: 4, advance: 3, settle: 3, refund: 1, release: 2, setLimits: 3 }), (s) =>
        Harness.run(s),
      ),
      runs,
    );
  });

  it("2: FIFO — a large request at the head is never overtaken by the small ones behind it", async () => {
    const fifo = fc
      .record({
        tpm: fc.integer({ min: 100, max: 5000 }),
        rpm: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        initial: fraction(0, 1),
        bigShare: fraction(0.5, 1),
        smalls: fc.array(fc.record({ share: fraction(0, 0.1), gap: fc.integer({ min: 0, max: 3_000 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
      })
      .map(({ tpm, rpm, initial, bigShare, smalls }): Scenario => ({
        config: { shorthands: { tpm, ...(rpm === undefined ? {} : { rpm }) }, custom: {}, capacity: {} },
        initial,
        ops: [
          { kind: "arrive", estimate: bigShare * tpm, abortable: false },
          ...smalls.flatMap(({ share, gap }): Op[] => [
            { kind: "advance", ms: gap },
            { kind: "arrive", estimate: share * tpm, abortable: false },
          ]),
        ],
      }));
    await fc.assert(
      fc.asyncProperty(fifo, (s) =>
        // Nothing is cancelled here, so every request is admitted, in arrival order.
        Harness.run(s, (h) => expect(h.admissions.map((r) => r.id)).toEqual(h.requests.map((r) => r.id))),
      ),
      runs,
    );
  });

  it("4: liveness — whatever fits is admitted in finite time once in-flight calls are released; what never fits is refused at once", async () => {
    await fc.assert(
      fc.asyncProperty(scenario({ arrive: 6, advance: 3, settle: 2, release: 1, setLimits: 1 }), (s) =>
        Harness.run(s, (h) => {
          // Nothing was aborted and no maxWaitMs can expire unnoticed: each request ended admitted, or refused as too
          // large or timed out.
          for (const r of h.requests) {
            if (r.status === "admitted") continue;
            if (r.error instanceof RequestTooLargeError) continue;
            expect(r.maxWaitMs, `#${r.id} refused with ${String(r.error)}`).toBeDefined();
          }
        }),
      ),
      runs,
    );
  });

  it("5: cancellation — aborted and timed-out waiters leave at once, hold no capacity, leave no timer or listener", async () => {
    const cancelling = scenario({ arrive: 6, advance: 4, abort: 3, release: 2, settle: 1, refund: 1 });
    await fc.assert(
      fc.asyncProperty(cancelling, (s) =>
        Harness.run(s, (h) => {
          // Whoever left the queue before admission left at its deadline, on its abort, or at once.
          for (const r of h.requests) {
            if (r.status !== "rejected" || r.error instanceof RequestTooLargeError) continue;
            expect(r.aborted || r.maxWaitMs !== undefined, `#${r.id}: ${String(r.error)}`).toBe(true);
          }
        }),
      ),
      runs,
    );
  });

  it("a WaitTimeoutError at once is fair: with nothing else happening, the request could not have been admitted within maxWaitMs", async () => {
    await fc.assert(
      // Every arrival has a maxWaitMs near its expected wait, so that waiters ahead time out too.
      fc.asyncProperty(scenario({ arrive: 6, advance: 2, settle: 1, release: 3 }, patience), (s) =>
        Harness.run(s, (h) => {
          for (const r of h.requests) {
            if (
              !(r.error instanceof WaitTimeoutError) ||
              r.rejectedAt !== r.arrivedAt ||
              r.error.waitMs <= r.error.maxWaitMs
            )
              continue;
            // Timers fire on whole milliseconds: admissible a full millisecond before the deadline was in time.
            expect(r.admissibleAt, `#${r.id} refused at once with ${r.error.message}`).toBeGreaterThan(r.deadline - 1);
          }
        }),
      ),
      runs,
    );
  });

  it("setLimits lowering a capacity below a waiter's cost refuses that waiter with RequestTooLargeError; the rest proceed", async () => {
    const lowering = fc
      .record({
        tpm: fc.integer({ min: 100, max: 5000 }),
        costs: fc.array(fraction(0, 1), { minLength: 1, maxLength: 10 }),
        newShare: fraction(0.05, 1),
        how: fc.constantFrom("capacity" as const, "limit" as const),
        wait: step,
      })
      .map(({ tpm, costs, newShare, how, wait }): Scenario => {
        const lowered = Math.max(1, Math.floor(newShare * tpm));
        const lower: Change =
          how === "capacity"
            ? { kind: "capacity", name: "tpm", value: lowered }
            : { kind: "limit", name: "tpm", value: lowered };
        return {
          config: { shorthands: { tpm }, custom: {}, capacity: {} },
          initial: "empty",
          ops: [
            ...costs.map((share): Op => ({ kind: "arrive", estimate: share * tpm, abortable: true })),
            { kind: "advance", ms: wait },
            { kind: "setLimits", change: lower },
          ],
        };
      });
    await fc.assert(
      fc.asyncProperty(lowering, (s) =>
        Harness.with(s, async (h) => {
          for (const o of s.ops.slice(0, -1)) await h.apply(o);
          const waiting = [...h.queued()];
          await h.apply(s.ops.at(-1)!);
          const capacity = h.model.buckets.get("tpm")!.capacity;
          for (const r of waiting) {
            if (Number(r.estimate) > capacity) {
              expect(r.error, `#${r.id}`).toBeInstanceOf(RequestTooLargeError);
              expect((r.error as RequestTooLargeError).dimension).toBe("tpm");
            }
          }
          await h.drain();
          for (const r of waiting) if (Number(r.estimate) <= capacity) expect(r.status, `#${r.id}`).toBe("admitted");
        }),
      ),
      runs,
    );
  });

  it("close() refuses every waiter with LimiterClosedError, leaves no timer, and refuses later calls", async () => {
    const closing = fc.boolean().chain((split) =>
      fc.record({
        config: config(split),
        initial,
        ops: fc.array(op(split, { arrive: 5, advance: 2, settle: 1, release: 1, abort: 1 }), {
          maxLength: 30,
          size: "max",
        }),
        after: fc.array(op(split, { arrive: 2, settle: 1, release: 1, advance: 1 }), { maxLength: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(closing, ({ after, ...s }) =>
        Harness.with(s, async (h) => {
          for (const o of s.ops) await h.apply(o);
          const waiting = [...h.queued()];
          await h.apply({ kind: "close" });
          for (const r of waiting) expect(r.error, `#${r.id}`).toBeInstanceOf(LimiterClosedError);
          expect(h.timers.countTimers()).toBe(0);
          const before = h.requests.length;
          for (const o of after) await h.apply(o);
          for (const r of h.requests.slice(before)) expect(r.error, `#${r.id}`).toBeInstanceOf(LimiterClosedError);
          await h.drain();
        }),
      ),
      runs,
    );
  });
});
