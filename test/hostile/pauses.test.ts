import { describe, expect, it } from "vitest";
import { Limiter, LimiterGroup, type PauseState, type Reservation, type ResumedEvent } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "../shared/in-process-store.js";

const time = useFakeTime();

const SECOND = 1_000;
const MINUTE = 60_000;
const DAY = 86_400_000;
const MONTH = 31 * DAY;

/** A limiter with room for many calls at once, so only a pause can hold one back. */
function roomy(): Limiter {
  return new Limiter({ rpm: 600, tpm: 1_000_000, provider: "openai", initial: "full" });
}

/** OpenAI's headers for a success with plenty left. */
const ROOM = {
  "x-ratelimit-limit-requests": "600",
  "x-ratelimit-remaining-requests": "590",
  "x-ratelimit-limit-tokens": "1000000",
  "x-ratelimit-remaining-tokens": "990000",
};

/** Acquires `n` calls of `tokens`; records when each was admitted. */
function queue(limiter: Limiter, n: number, tokens = 10): { admittedAt: number[]; calls: Promise<Reservation>[] } {
  const admittedAt: number[] = [];
  const calls = Array.from({ length: n }, () =>
    limiter.acquire(tokens).then((call) => {
      admittedAt.push(time.clock.now());
      return call;
    }),
  );
  return { admittedAt, calls };
}

function events<K extends "paused" | "resumed">(
  limiter: Limiter,
  name: K,
): (K extends "paused" ? PauseState : ResumedEvent)[] {
  const seen: (K extends "paused" ? PauseState : ResumedEvent)[] = [];
  limiter.on(name, (event) => void seen.push(event as never));
  return seen;
}

describe("a 429's pause longer than a minute is probed", () => {
  it("retry-after 86400: one probe a minute goes through; its success ends the pause for everyone", async () => {
    const limiter = roomy();
    const paused = events(limiter, "paused");
    const resumed = events(limiter, "resumed");
    limiter.sync({ "retry-after": "86400" }, { status: 429 });
    const wall = time.clock.wallNow();
    expect(paused).toEqual([
      { dimensions: ["rpm", "tpm"], all: true, until: wall + DAY, heldUntil: wall + MINUTE, probed: true },
    ]);
    expect(limiter.snapshot().pauses).toEqual(paused);
    const { admittedAt, calls } = queue(limiter, 5);
    await time.at(MINUTE - 1);
    expect(admittedAt).toEqual([]);
    await time.at(MINUTE);
    // The probe alone: the next stretch holds the others.
    expect(admittedAt).toEqual([MINUTE]);
    expect(limiter.snapshot().pauses?.[0]).toMatchObject({ heldUntil: wall + 2 * MINUTE, until: wall + DAY });
    const probe = await calls[0]!;
    await time.at(MINUTE + 500);
    probe.sync(ROOM, { status: 200 });
    probe.release();
    await time.at(MINUTE + 500);
    expect(admittedAt).toEqual([MINUTE, MINUTE + 500, MINUTE + 500, MINUTE + 500, MINUTE + 500]);
    expect(limiter.snapshot().pauses).toBeUndefined();
    expect(resumed).toEqual([{ ...paused[0], heldUntil: wall + 2 * MINUTE, reason: "response" }]);
  });

  it("366 days: held a month at most, a probe a minute while every probe draws the 429 again", async () => {
    const limiter = roomy();
    const again = { "retry-after": String(366 * 86_400) };
    limiter.sync(again, { status: 429 });
    expect(limiter.snapshot().pauses?.[0]?.until).toBe(time.clock.wallNow() + MONTH);
    const { admittedAt, calls } = queue(limiter, 4);
    for (let i = 1; i <= 3; i++) {
      await time.at(i * MINUTE);
      const probe = await calls[i - 1]!;
      probe.sync(again, { status: 429 });
      probe.release();
    }
    await time.at(3 * MINUTE + 59 * SECOND);
    expect(admittedAt).toEqual([MINUTE, 2 * MINUTE, 3 * MINUTE]);
    await time.at(4 * MINUTE);
    expect(admittedAt).toHaveLength(4);
  });

  it("with nothing to probe, the pause runs out after the hint, bounded at a month", async () => {
    const limiter = roomy();
    limiter.sync({ "retry-after": String(10 * 365 * 86_400) }, { status: 429 });
    await time.at(MONTH - 1);
    expect(limiter.snapshot().pauses).toHaveLength(1);
    await time.at(MONTH);
    expect(limiter.snapshot().pauses).toBeUndefined();
  });

  it("Anthropic's retry-after 13262 while calls succeed again: a minute lost, not 3.7 hours", async () => {
    const limiter = new Limiter({ rpm: 50, itpm: 40_000, otpm: 8_000, provider: "anthropic", initial: "full" });
    const reset = new Date(time.clock.wallNow() + 13_262 * SECOND).toISOString();
    limiter.sync(
      {
        "retry-after": "13262",
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-requests-reset": reset,
      },
      {
        status: 429,
        body: {
          type: "error",
          error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" },
        },
      },
    );
    const done: number[] = [];
    const calls = Array.from({ length: 10 }, () =>
      limiter.run({ input: 100, output: 50 }, async (call) => {
        call.sync({
          "anthropic-ratelimit-requests-limit": "50",
          "anthropic-ratelimit-requests-remaining": "40",
          "anthropic-ratelimit-requests-reset": new Date(time.clock.wallNow() + SECOND).toISOString(),
        });
        done.push(time.clock.now());
        return { value: undefined };
      }),
    );
    await time.at(2 * MINUTE);
    await Promise.all(calls);
    expect(done).toHaveLength(10);
    expect(Math.max(...done)).toBeLessThanOrEqual(MINUTE);
  });

  it("run: an SDK's 429 thrown with retry-after 13262, then a call that resolves without syncing, ends the pause", async () => {
    const limiter = roomy();
    const sdk429 = Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "13262" } });
    await expect(limiter.run(10, () => Promise.reject(sdk429))).rejects.toBe(sdk429);
    const probe = limiter.run(10, async () => ({ value: time.clock.now() }));
    const { admittedAt, calls } = queue(limiter, 3);
    await time.at(MINUTE);
    expect(await probe).toBe(MINUTE);
    await time.at(MINUTE);
    expect(admittedAt).toEqual([MINUTE, MINUTE, MINUTE]);
    for (const call of calls) (await call).release();
  });

  it("a short 429 during a long pause neither ends nor unprobes it", async () => {
    const limiter = roomy();
    limiter.sync({ "retry-after": "3600" }, { status: 429 });
    limiter.sync({ "retry-after": "5" }, { status: 429 });
    expect(limiter.snapshot().pauses).toEqual([expect.objectContaining({ probed: true })]);
    expect(limiter.snapshot().pauses?.[0]?.until).toBe(time.clock.wallNow() + 3_600_000);
  });

  it("a response to a call admitted before the 429 is not a probe: it lifts nothing", async () => {
    const limiter = roomy();
    const early = await limiter.acquire(10);
    limiter.sync({ "retry-after": "3600" }, { status: 429 });
    early.sync(ROOM, { status: 200 });
    early.release();
    expect(limiter.snapshot().pauses).toHaveLength(1);
    const { admittedAt } = queue(limiter, 1);
    await time.at(MINUTE - 1);
    expect(admittedAt).toEqual([]);
  });

  it("a probe whose response shows the paused budget still spent lifts nothing", async () => {
    const limiter = roomy();
    limiter.sync({ "retry-after": "3600" }, { status: 429, body: { error: { type: "tokens" } } });
    expect(limiter.snapshot().pauses?.[0]).toMatchObject({ dimensions: ["tpm"], all: false });
    const { admittedAt, calls } = queue(limiter, 2);
    await time.at(MINUTE);
    const probe = await calls[0]!;
    probe.sync({ ...ROOM, "x-ratelimit-remaining-tokens": "0" }, { status: 200 });
    probe.release();
    await time.at(MINUTE + 1);
    expect(admittedAt).toEqual([MINUTE]);
    expect(limiter.snapshot().pauses).toHaveLength(1);
  });

  it("run's retry of the 429 waits a minute, goes as the probe, and its success ends the pause", async () => {
    const limiter = roomy();
    let attempts = 0;
    const result = limiter.run(
      10,
      async (call) => {
        if (attempts++ === 0)
          throw Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "86400" } });
        call.sync(ROOM, { status: 200 });
        return { value: time.clock.now() };
      },
      { retry: { attempts: 2 } },
    );
    await time.at(0); // the first attempt's 429 is in
    expect(limiter.snapshot().pauses).toHaveLength(1);
    const { admittedAt } = queue(limiter, 3);
    await time.at(MINUTE);
    expect(await result).toBe(MINUTE);
    await time.at(MINUTE);
    expect(admittedAt).toEqual([MINUTE, MINUTE, MINUTE]);
  });
});

describe("retry hints from outside", () => {
  it.each([
    ["an HTTP date in 2100", { "retry-after": "Fri, 01 Jan 2100 00:00:00 GMT" }],
    ["a huge retry-after-ms", { "retry-after-ms": "9".repeat(200) }],
    ["retry-after in epoch-sized seconds", { "retry-after": "99999999999" }],
  ])("%s: a month at most, probed", async (_, headers) => {
    const limiter = roomy();
    limiter.sync(headers, { status: 429 });
    expect(limiter.snapshot().pauses).toEqual([
      expect.objectContaining({ until: time.clock.wallNow() + MONTH, heldUntil: time.clock.wallNow() + MINUTE }),
    ]);
    const { admittedAt } = queue(limiter, 1);
    await time.at(MINUTE);
    expect(admittedAt).toEqual([MINUTE]);
  });

  it.each([
    ["negative", "-5"],
    ["NaN", "NaN"],
    ["empty", ""],
  ])("a %s retry-after-ms is no hint: no pause, the binding bucket is drained instead", (_, value) => {
    const limiter = roomy();
    limiter.sync({ "retry-after-ms": value }, { status: 429 });
    expect(limiter.snapshot().pauses).toBeUndefined();
    expect(limiter.snapshot().dimensions.rpm?.available).toBe(0);
  });

  it("Retry-After 1 and Retry-After-Ms 0 (Azure AI Foundry): the longer holds", async () => {
    const limiter = roomy();
    limiter.sync({ "Retry-After": "1", "Retry-After-Ms": "0" }, { status: 429 });
    const { admittedAt } = queue(limiter, 1);
    await time.at(999);
    expect(admittedAt).toEqual([]);
    await time.at(1_000);
    expect(admittedAt).toEqual([1_000]);
  });
});

describe("a per-day quota the body names", () => {
  const body = {
    error: {
      code: 429,
      message: "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day",
    },
  };

  it("waits for its day: a success does not end it, resume() does", async () => {
    const limiter = new Limiter({ rpm: 20, provider: "openrouter", initial: "full" });
    const resumed = events(limiter, "resumed");
    limiter.sync({ "retry-after": "36000" }, { status: 429, body });
    expect(limiter.snapshot().pauses).toEqual([expect.objectContaining({ probed: false })]);
    const { admittedAt } = queue(limiter, 1, 0);
    limiter.sync({ "x-ratelimit-limit": "20", "x-ratelimit-remaining": "19" }, { status: 200 });
    await time.at(10 * MINUTE);
    expect(admittedAt).toEqual([]);
    limiter.resume();
    await time.at(10 * MINUTE);
    expect(admittedAt).toEqual([10 * MINUTE]);
    expect(resumed).toEqual([expect.objectContaining({ reason: "resume", probed: false })]);
  });
});

describe("the user can always lift a pause", () => {
  it("resume() admits the next waiter at once, retries held for their hint included", async () => {
    const limiter = roomy();
    limiter.sync({ "retry-after": "86400" }, { status: 429 });
    let attempts = 0;
    const retried = limiter.run(
      10,
      async () => {
        if (attempts++ === 0) throw Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "50" } });
        return { value: time.clock.now() };
      },
      { retry: { attempts: 2 } },
    );
    await time.at(MINUTE);
    await time.at(MINUTE + 10 * SECOND);
    const { admittedAt } = queue(limiter, 2);
    limiter.resume();
    await time.at(MINUTE + 10 * SECOND);
    expect(await retried).toBe(MINUTE + 10 * SECOND);
    expect(admittedAt).toEqual([MINUTE + 10 * SECOND, MINUTE + 10 * SECOND]);
    expect(limiter.snapshot().pauses).toBeUndefined();
  });

  it("setLimits lifts every pause, per-dimension ones too", async () => {
    const limiter = roomy();
    const resumed = events(limiter, "resumed");
    limiter.sync({ "retry-after": "3600" }, { status: 429, body: { error: { type: "tokens" } } });
    limiter.sync({ "retry-after": "30" }, { status: 429, body: { error: { type: "requests" } } });
    const { admittedAt } = queue(limiter, 1);
    await time.at(SECOND);
    limiter.setLimits({ rpm: 300 });
    await time.at(SECOND);
    expect(admittedAt).toEqual([SECOND]);
    expect(resumed.map((e) => [e.dimensions, e.reason])).toEqual([
      [["tpm"], "setLimits"],
      [["rpm"], "setLimits"],
    ]);
  });

  it("a LimiterGroup's resume() lifts its members' pauses, on the shared dimensions too", async () => {
    const group = new LimiterGroup({
      shared: { rpm: 600 },
      models: { a: { tpm: 100_000 }, b: { tpm: 100_000 } },
      provider: "openai",
      initial: "full",
    });
    group.for("a").sync({ "retry-after": "86400" }, { status: 429 });
    let admitted = 0;
    void group
      .for("a")
      .acquire(10)
      .then(() => admitted++);
    await time.at(SECOND);
    expect(admitted).toBe(0);
    group.resume();
    await time.at(SECOND);
    expect(admitted).toBe(1);
    await group.close();
  });
});

describe("through a shared store (virtual time)", () => {
  /** Two replicas on one store. */
  function replicas(): [Limiter, Limiter] {
    const store = new InProcessStore(() => performance.now());
    const make = () => new Limiter({ rpm: 600, tpm: 1_000_000, provider: "openai", store });
    return [make(), make()];
  }

  it("a probed pause lets one call through a minute, in one booking of its own; its success ends it", async () => {
    const [a] = replicas();
    a.sync({ "retry-after": "3600" }, { status: 429 });
    const { admittedAt, calls } = queue(a, 5);
    await time.at(MINUTE + 100);
    expect(admittedAt).toEqual([MINUTE]);
    const probe = await calls[0]!;
    probe.sync(ROOM, { status: 200 });
    probe.release();
    await time.at(MINUTE + 200);
    expect(admittedAt).toHaveLength(5);
    await a.close();
  });

  it("resume() on one replica lifts the pause the other sees", async () => {
    const [a, b] = replicas();
    a.sync({ "retry-after": "86400" }, { status: 429 });
    await time.at(10);
    await expect(b.acquire(10, { maxWaitMs: 0 })).rejects.toMatchObject({ code: "WAIT_TIMEOUT" });
    a.resume();
    await time.at(20);
    const call = b.acquire(10, { maxWaitMs: 0 });
    await time.at(30);
    (await call).release();
    await Promise.all([a.close(), b.close()]);
  });
});
