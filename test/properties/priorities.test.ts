/**
 * Priorities and tenants against a model written here (the harness's bucket arithmetic): random arrivals of three
 * classes (two with headroom) and a few tenants, aborts and pauses in time, checked at every admission and after
 * every step, then drained.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { Limiter, RequestTooLargeError, type Reservation } from "../../src/index.js";
import { flushPromises, installFakeTime } from "../fake-time.js";
import { check } from "./harness/check.js";
import type { Config } from "./harness/index.js";
import { Model, tolerance } from "./harness/model.js";
import { numRuns } from "./runs.js";

const CLASSES = ["interactive", "default", "background"] as const;
/** Enough names that many calls are a tenant's first, which has a bound of its own. */
const TENANTS = ["a", "b", "c", "d", "e", "f", "g", "h", undefined] as const;

interface Arrive {
  kind: "arrive";
  rank: number;
  tenant: (typeof TENANTS)[number];
  /** Fraction of what the class may take of the token capacity (above 1: too large, refused at once). */
  size: number;
  abortable: boolean;
  /** Calls arriving at once, alike. */
  count: number;
}
type Op = Arrive | { kind: "advance"; ms: number } | { kind: "abort"; pick: number };

interface Case {
  tpm: number;
  capacity: number;
  rpm: number | undefined;
  /** Headroom of `default` and `background`. */
  headroom: [number, number];
  ops: Op[];
}

interface Call {
  readonly id: number;
  readonly rank: number;
  readonly tenant: string | undefined;
  readonly cost: number;
  readonly controller: AbortController | undefined;
  /** Lanes of its class busy when it arrived, and whether its tenant was new to the run. */
  readonly busyLanesAtArrival: number;
  readonly freshTenant: boolean;
  /** Admissions of other tenants of its class while it waited. */
  overtakenBy: number;
  status: "queued" | "admitted" | "rejected";
}

const arrive: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant("arrive" as const),
  rank: fc.integer({ min: 0, max: 2 }),
  tenant: fc.constantFrom(...TENANTS),
  size: fc.oneof({ weight: 12, arbitrary: fc.double({ min: 0.01, max: 1, noNaN: true }) }, fc.constant(1.5)),
  abortable: fc.boolean(),
  count: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, fc.integer({ min: 2, max: 12 })),
});

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: arrive },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 20_000 }) }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("abort" as const), pick: fc.nat() }) },
  ),
  { maxLength: 40, size: "max" },
);

const cases: fc.Arbitrary<Case> = fc.record({
  tpm: fc.integer({ min: 500, max: 5_000 }),
  capacity: fc.integer({ min: 500, max: 10_000 }),
  rpm: fc.option(fc.integer({ min: 5, max: 30 }), { nil: undefined }),
  headroom: fc.tuple(fc.constantFrom(0, 0.1, 0.3), fc.constantFrom(0.2, 0.5)),
  ops,
});

/** One case: the limiter on fake timers beside the model, every outcome replayed against it in the order it came. */
async function runCase(c: Case): Promise<void> {
  const { timers, clock } = installFakeTime({ wallStartMs: 0 });
  try {
    const config: Config = {
      shorthands: { tpm: c.tpm, ...(c.rpm === undefined ? {} : { rpm: c.rpm }) },
      custom: {},
      capacity: { tpm: c.capacity },
    };
    const model = new Model(config, 1);
    const reserves = [0, ...c.headroom];
    const limiter = new Limiter({
      tpm: c.tpm,
      ...(c.rpm === undefined ? {} : { rpm: c.rpm }),
      capacity: { tpm: c.capacity },
      initial: "full",
      arrivalDelayMs: 0,
      clock,
      priorities: CLASSES,
      headroom: { default: c.headroom[0], background: c.headroom[1] },
    });
    const calls: Call[] = [];
    let queue: Call[] = [];
    const outcomes: { call: Call; at: number; reservation?: Reservation; error?: unknown }[] = [];
    const seenTenants = new Set<string | undefined>();

    const laneOf = (call: Call): string => `${call.rank}/${call.tenant ?? ""}`;

    const admitted = (call: Call, at: number): void => {
      model.now = at;
      // FIFO within a (class, tenant).
      const first = queue.find((q) => laneOf(q) === laneOf(call));
      check(first === call, () => `#${call.id} admitted before #${first?.id} of its lane ${laneOf(call)}`);
      // Strict between classes.
      const urgent = queue.find((q) => q.rank < call.rank);
      check(
        !urgent,
        () => `#${call.id} (class ${call.rank}) admitted while #${urgent!.id} (class ${urgent!.rank}) waits`,
      );
      // Never over, and the class's headroom kept on every dimension.
      for (const bucket of model.buckets.values()) {
        const cost = bucket.unit === "requests" ? 1 : call.cost;
        const after = model.levelOf(bucket) - cost;
        const keep = reserves[call.rank]! * bucket.capacity;
        check(
          after >= keep - tolerance(bucket),
          () => `#${call.id} leaves ${after} on ${bucket.name}, below its class's ${keep}`,
        );
      }
      model.take(call.cost);
      for (const q of queue) if (q !== call && q.rank === call.rank && q.tenant !== call.tenant) q.overtakenBy++;
      queue = queue.filter((q) => q !== call);
      call.status = "admitted";
      // A tenant's first call waits behind at most one call of each lane busy when it came.
      if (call.freshTenant) {
        check(
          call.overtakenBy <= call.busyLanesAtArrival,
          () => `#${call.id} overtaken by ${call.overtakenBy} calls, with ${call.busyLanesAtArrival} lanes ahead`,
        );
      }
    };

    const settle = async (): Promise<void> => {
      timers.tick(0);
      await flushPromises();
      for (const { call, at, reservation, error } of outcomes.splice(0)) {
        if (reservation) {
          admitted(call, at);
          continue;
        }
        check(queue.includes(call), () => `#${call.id} refused twice`);
        queue = queue.filter((q) => q !== call);
        call.status = "rejected";
        check(call.controller?.signal.aborted === true, () => `#${call.id} refused: ${String(error)}`);
      }
      workConserved();
    };

    /** Room unused: every lane head of the most urgent waiting class fits now, with a millisecond of slack. */
    const workConserved = (): void => {
      const top = Math.min(...queue.map((q) => q.rank));
      if (top === Infinity) return;
      const heads = new Map<string, Call>();
      for (const q of queue) if (q.rank === top && !heads.has(laneOf(q))) heads.set(laneOf(q), q);
      const fits = (call: Call): boolean =>
        [...model.buckets.values()].every((bucket) => {
          const cost = bucket.unit === "requests" ? 1 : call.cost;
          const slack = bucket.limit / bucket.windowMs + tolerance(bucket);
          return model.levelOf(bucket) - cost - reserves[call.rank]! * bucket.capacity >= slack;
        });
      check(![...heads.values()].every(fits), () => `class ${top} fits at ${model.now} but waits`);
    };

    const advance = async (ms: number): Promise<void> => {
      await timers.tickAsync(ms);
      model.now = clock.now();
      await settle();
    };

    const arrival = async (op: Arrive): Promise<void> => {
      const may = c.capacity * (1 - reserves[op.rank]!);
      const cost = Math.max(1, Math.round(op.size * may));
      const lanes = new Set(queue.filter((q) => q.rank === op.rank).map((q) => q.tenant));
      const call: Call = {
        id: calls.length,
        rank: op.rank,
        tenant: op.tenant,
        cost,
        controller: op.abortable ? new AbortController() : undefined,
        busyLanesAtArrival: lanes.size,
        freshTenant: !seenTenants.has(op.tenant) && op.tenant !== undefined,
        overtakenBy: 0,
        status: "queued",
      };
      seenTenants.add(op.tenant);
      calls.push(call);
      const promise = limiter.acquire(cost, {
        priority: CLASSES[op.rank],
        ...(op.tenant === undefined ? {} : { tenant: op.tenant }),
        ...(call.controller ? { signal: call.controller.signal } : {}),
      });
      if (cost > may) {
        await promise.then(
          () => check(false, () => `#${call.id} costs ${cost} > ${may} but was admitted`),
          (error: unknown) => check(error instanceof RequestTooLargeError, () => `#${call.id}: ${String(error)}`),
        );
        call.status = "rejected";
        return;
      }
      queue.push(call);
      promise.then(
        (reservation) => outcomes.push({ call, at: clock.now(), reservation }),
        (error: unknown) => outcomes.push({ call, at: clock.now(), error }),
      );
      await settle();
    };

    for (const op of c.ops) {
      if (op.kind === "advance") {
        await advance(op.ms);
        continue;
      }
      if (op.kind === "abort") {
        const waiting = queue.filter((q) => q.controller);
        const call = waiting[op.pick % Math.max(1, waiting.length)];
        call?.controller!.abort(new Error(`abort #${call.id}`));
        await settle();
        if (call) check(call.status === "rejected", () => `#${call.id} still waits after its abort`);
        continue;
      }
      for (let i = 0; i < op.count; i++) await arrival(op);
    }
    // Liveness: every class and tenant is served in finite time.
    // Bounded by the time each budget takes to refill what waits and the largest headroom on it, from empty
    // (the requests budget's capacity is its rpm).
    const tokens = queue.reduce((sum, q) => sum + q.cost, 0);
    const reserve = Math.max(...reserves);
    const minutes =
      (tokens + reserve * c.capacity) / c.tpm + (c.rpm === undefined ? 0 : (queue.length + reserve * c.rpm) / c.rpm);
    const rounds = Math.ceil((minutes * 60_000) / 10_000) + 2;
    for (let round = 0; queue.length > 0; round++) {
      check(round < rounds, () => `${queue.length} still queued after draining: #${queue[0]!.id} first`);
      await advance(10_000);
    }
    check(limiter.snapshot().queued === 0, () => "the limiter still has waiters");
  } finally {
    timers.uninstall();
  }
}

describe("priorities and tenants", () => {
  it("FIFO within a (class, tenant), strict between classes, headroom never taken, a tenant's first call behind at most one call per busy lane, no class or tenant left waiting while room goes unused", async () => {
    await fc.assert(fc.asyncProperty(cases, runCase), { numRuns: numRuns(150) });
  }, 120_000);
});
