/**
 * Discovery without headers: with nothing configured and no level reported, the limiter holds an adaptive
 * concurrency limit (docs/header-sync.md, "Providers that send no headers").
 */
import { describe, expect, it } from "vitest";
import { Limiter, LimiterClosedError, type Reservation } from "../src/index.js";
import { DISCOVERY_BACKOFF, DISCOVERY_CEILING, DISCOVERY_START } from "../src/sync/discovery.js";
import { useFakeTime } from "./fake-time.js";
import { InProcessStore } from "./shared/in-process-store.js";

const time = useFakeTime();

const OK = { status: 200 } as const;
const LIMITED = { status: 429 } as const;

function limitOf(limiter: Limiter): number | undefined {
  return limiter.snapshot().concurrency?.limit;
}

/** Admits `n` calls (they must fit now). */
async function admit(limiter: Limiter, n: number): Promise<Reservation[]> {
  const calls: Reservation[] = [];
  for (let i = 0; i < n; i++) calls.push(await limiter.acquire(1));
  return calls;
}

/** Each of `calls` answers (`options`; a 429 with a hint of a second), then all are released. */
function answer(calls: readonly Reservation[], options: { status: number }, given?: Record<string, string>): void {
  const headers = given ?? (options.status === 429 ? { "retry-after": "1" } : {});
  for (const call of calls) call.sync(headers, options);
  for (const call of calls) call.release();
}

/** Rounds of successes at the current limit until it reaches `target` (or stops growing). */
async function growTo(limiter: Limiter, target: number): Promise<void> {
  for (let round = 0; round < 10_000 && limitOf(limiter)! < target; round++)
    answer(await admit(limiter, limitOf(limiter)!), OK);
}

describe("discovery without headers", () => {
  it(`starts at ${DISCOVERY_START} call in flight until the first response, not 20`, async () => {
    const limiter = new Limiter();
    expect(limitOf(limiter)).toBe(DISCOVERY_START);
    await admit(limiter, DISCOVERY_START);
    let next = false;
    const waiting = limiter.acquire(1);
    waiting.then(
      () => (next = true),
      () => undefined,
    );
    await time.timers.tickAsync(10_000);
    expect(next).toBe(false);
    await limiter.close();
    await expect(waiting).rejects.toBeInstanceOf(LimiterClosedError);
  });

  it("until the first 429, each success adds one (the limit doubles per round)", async () => {
    const limiter = new Limiter();
    answer(await admit(limiter, 1), OK);
    expect(limitOf(limiter)).toBe(2);
    answer(await admit(limiter, 2), OK);
    expect(limitOf(limiter)).toBe(4);
    answer(await admit(limiter, 4), OK);
    expect(limitOf(limiter)).toBe(8);
  });

  it("a burst of 429s of calls sent before the cut cuts once; a 429 of a call sent after it cuts again", async () => {
    const limiter = new Limiter();
    await growTo(limiter, 16);
    expect(limitOf(limiter)).toBe(16);
    const burst = await admit(limiter, 16);
    answer(burst, LIMITED);
    const cut = Math.floor(16 * DISCOVERY_BACKOFF);
    expect(limitOf(limiter)).toBe(cut);
    await time.timers.tickAsync(5_000);
    const [after] = await admit(limiter, 1);
    answer([after!], LIMITED);
    expect(limitOf(limiter)).toBe(Math.floor(cut * DISCOVERY_BACKOFF));
  });

  it("after a cut, one more per round of successes (as many as the limit)", async () => {
    const limiter = new Limiter();
    await growTo(limiter, 8);
    expect(limitOf(limiter)).toBe(8);
    answer(await admit(limiter, 1), LIMITED);
    await time.timers.tickAsync(5_000);
    expect(limitOf(limiter)).toBe(5);
    const round = await admit(limiter, 5);
    for (const call of round.slice(0, 4)) call.sync({}, OK);
    expect(limitOf(limiter)).toBe(5);
    round[4]!.sync({}, OK);
    expect(limitOf(limiter)).toBe(6);
    for (const call of round) call.release();
  });

  it("a limit less than half used does not grow: calls that come slower than it say nothing of the provider", async () => {
    const limiter = new Limiter();
    await growTo(limiter, 8);
    expect(limitOf(limiter)).toBe(8);
    // One call at a time, 3 in flight at most: never half of 8.
    for (let i = 0; i < 20; i++) answer(await admit(limiter, 3), OK);
    expect(limitOf(limiter)).toBe(8);
    // Four in flight is half of 8: the first success grows it to 9, which four no longer half fill.
    answer(await admit(limiter, 4), OK);
    expect(limitOf(limiter)).toBe(9);
  });

  it("never below 1", async () => {
    const limiter = new Limiter();
    for (let i = 0; i < 8; i++) {
      answer(await admit(limiter, 1), LIMITED);
      // A minute: the rate these episodes measure (none served) is the floor, a call a minute.
      await time.timers.tickAsync(60_000);
    }
    expect(limitOf(limiter)).toBe(1);
  });

  it("never above the ceiling", async () => {
    const grown = new Limiter();
    await growTo(grown, DISCOVERY_CEILING);
    expect(limitOf(grown)).toBe(DISCOVERY_CEILING);
    answer(await admit(grown, DISCOVERY_CEILING), OK);
    expect(limitOf(grown)).toBe(DISCOVERY_CEILING);
  });

  it("headers win: once a response reports a level, the adaptive limit is dropped for good", async () => {
    const limiter = new Limiter({ provider: "openai" });
    answer(await admit(limiter, 1), OK);
    answer(await admit(limiter, 2), OK);
    expect(limitOf(limiter)).toBe(4);
    const headers = { "x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499" };
    answer(await admit(limiter, 1), OK, headers);
    expect(limitOf(limiter)).toBeUndefined();
    answer(await admit(limiter, 1), LIMITED);
    expect(limitOf(limiter)).toBeUndefined();
  });

  it("configured limits stand: a configured concurrency is kept, configured rates add none", async () => {
    const bounded = new Limiter({ concurrency: 5 });
    answer(await admit(bounded, 5), OK);
    expect(limitOf(bounded)).toBe(5);
    const rated = new Limiter({ rpm: 600 });
    answer(await admit(rated, 3), OK);
    answer(await admit(rated, 1), LIMITED);
    expect(limitOf(rated)).toBeUndefined();
  });

  it("a billing 429 and a server error neither grow nor cut it", async () => {
    const limiter = new Limiter({ provider: "anthropic" });
    const body = { type: "error", error: { type: "invalid_request_error", message: "extra usage is required" } };
    const [billing] = await admit(limiter, 1);
    billing!.sync({}, { status: 429, body });
    billing!.release();
    answer(await admit(limiter, 1), { status: 500 });
    expect(limitOf(limiter)).toBe(DISCOVERY_START);
  });
});

describe("discovery without headers: the rate served between 429 episodes", () => {
  /** A 429 of a fresh call: an episode. */
  async function episode(limiter: Limiter): Promise<void> {
    answer(await admit(limiter, 1), LIMITED);
  }

  /** `n` calls admitted one by one and served, `gapMs` apart. */
  async function serve(limiter: Limiter, n: number, gapMs: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await time.timers.tickAsync(gapMs);
      answer(await admit(limiter, 1), OK);
    }
  }

  const rpmOf = (limiter: Limiter) => limiter.snapshot().dimensions.rpm;

  it("two episodes 20 s apart, 10 calls served between: 30 calls a minute, a burst of 3", async () => {
    const limiter = new Limiter();
    await episode(limiter);
    expect(rpmOf(limiter)).toBeUndefined();
    await serve(limiter, 10, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)).toMatchObject({ limit: 30, windowMs: 60_000, capacity: 3 });
  });

  it("episodes less than 10 s apart measure nothing: the stretch stays open until one is far enough", async () => {
    const limiter = new Limiter();
    await episode(limiter);
    await serve(limiter, 4, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)).toBeUndefined();
    await serve(limiter, 2, 2_000);
    await episode(limiter);
    // 6 served over the 12 s since the first episode.
    expect(rpmOf(limiter)?.limit).toBe(30);
  });

  it("a later measurement lowers it, never raises it, and never below half at once; successes raise it", async () => {
    const limiter = new Limiter();
    await episode(limiter);
    await serve(limiter, 10, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)?.limit).toBe(30);
    // 4 successes (one short of a step of growth), then an episode 60 s later: 4 a minute measured, 15 kept.
    await serve(limiter, 4, 15_000);
    await episode(limiter);
    expect(rpmOf(limiter)?.limit).toBe(15);
    await serve(limiter, 5, 5_000);
    expect(rpmOf(limiter)?.limit).toBe(16);
  });

  it("a 429 with a hint of 5 s or more measures nothing and opens no stretch (a window's turn: its pause paces)", async () => {
    const limiter = new Limiter();
    const windowTurns = async (): Promise<void> => {
      const [call] = await admit(limiter, 1);
      call!.sync({ "retry-after": "5" }, LIMITED);
      call!.release();
      await time.timers.tickAsync(5_000);
    };
    await windowTurns();
    await serve(limiter, 10, 2_000);
    await windowTurns();
    await serve(limiter, 10, 2_000);
    expect(rpmOf(limiter)).toBeUndefined();
    // A short hint opens a stretch; the next, 20 s later, measures it.
    await episode(limiter);
    await serve(limiter, 10, 2_000);
    await windowTurns();
    expect(rpmOf(limiter)).toBeUndefined();
    await episode(limiter);
    await serve(limiter, 10, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)?.limit).toBe(30);
  });

  it("headers win: the discovered rate goes once a response reports a level", async () => {
    const limiter = new Limiter({ provider: "openai" });
    await episode(limiter);
    await serve(limiter, 10, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)?.limit).toBe(30);
    await time.timers.tickAsync(10_000);
    const headers = { "x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "999" };
    answer(await admit(limiter, 1), OK, headers);
    expect(rpmOf(limiter)).toBeUndefined();
    expect(limiter.snapshot().dimensions.tpm?.limit).toBe(1000);
  });

  it("with a shared store no rate is measured: a replica's calls served are its part of the key", async () => {
    const store = new InProcessStore(() => performance.now());
    const limiter = new Limiter({ store, onWarning: () => {} });
    await episode(limiter);
    await serve(limiter, 10, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)).toBeUndefined();
    await limiter.close();
  });

  it("configured limits stand: a configured rate discovers none", async () => {
    const limiter = new Limiter({ tpm: 100_000 });
    await episode(limiter);
    await serve(limiter, 10, 2_000);
    await episode(limiter);
    expect(rpmOf(limiter)).toBeUndefined();
  });
});
