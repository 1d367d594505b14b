import { describe, expect, it } from "vitest";
import { Limiter, type LimiterOptions } from "../src/index.js";
import { createProvider, type ProviderOptions } from "../src/testing/index.js";
import { useFakeTime } from "./fake-time.js";

const time = useFakeTime();

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

type Headers = Record<string, string>;

/** The budget names a limiter's snapshot holds. */
function budgets(limiter: Limiter): string[] {
  return Object.keys(limiter.snapshot().dimensions);
}

interface Traffic {
  /** Provider 429s drawn so far. */
  rejected(): number;
  /** Monotonic times the calls were admitted (each attempt), in order. */
  readonly admittedAt: number[];
  /** Settles when every call succeeded. */
  readonly done: Promise<unknown>;
}

/**
 * Starts `calls` calls arriving `everyMs` apart through `limiter`, against a simulated
 * provider in process, each retried after a 429; the provider's headers pass through
 * `rewrite` first. Virtual time is the caller's to run.
 */
function traffic(
  limiter: Limiter,
  provider: ProviderOptions,
  calls: number,
  everyMs: number,
  rewrite: (h: Headers) => Headers = (h) => h,
): Traffic {
  const simulated = createProvider({ latencyMs: 200, ...provider });
  const admittedAt: number[] = [];
  const done = Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, everyMs * i));
      return limiter.run(
        100,
        async (reservation) => {
          admittedAt.push(performance.now());
          const res = await simulated.call({ prompt: 50, maxTokens: 50, actual: 50 });
          const headers = rewrite(res.headers);
          if (res.status === 429)
            throw Object.assign(new Error("429"), { status: 429, headers, error: res.body.error });
          reservation.sync(headers);
          return { value: null };
        },
        { retry: { attempts: 1_000 } },
      );
    }),
  );
  return { rejected: () => simulated.stats().rejected, admittedAt, done };
}

/** Runs `calls` through {@link traffic} to the end, within `forMs` of virtual time. */
async function complete(
  limiter: Limiter,
  provider: ProviderOptions,
  calls: number,
  everyMs: number,
  forMs: number,
  rewrite?: (h: Headers) => Headers,
): Promise<Traffic> {
  const run = traffic(limiter, provider, calls, everyMs, rewrite);
  await time.timers.tickAsync(forMs);
  await run.done;
  return run;
}

/** The longest time admission stood still between the first admission and the last. */
function longestStall(admittedAt: readonly number[]): number {
  return Math.max(...admittedAt.slice(1).map((t, i) => t - admittedAt[i]!));
}

/** Azure's headers with the ones only Azure sends removed: a sender nothing identifies. */
function unidentified(headers: Headers): Headers {
  const { "apim-request-id": _, "x-ms-region": __, ...rest } = headers;
  return rest;
}

describe("Azure's headers, provider left to detection", () => {
  const quickStart: LimiterOptions = { rpm: 120, tpm: 40_000 };
  // 120 RPM as Azure enforces it: 20 per 10 s sub-window, limit and remaining but no reset.
  const azure: ProviderOptions = { rpm: 120, tpm: 40_000, window: "azure", dialect: "azure" };

  it("are recognised by the headers only Azure sends, and traffic never stops for more than a minute", async () => {
    const limiter = new Limiter(quickStart);
    // 300 calls at once: fifteen sub-windows' worth, the last opening at 140 s.
    const { admittedAt } = await complete(limiter, azure, 300, 0, 10 * MINUTE);
    expect(admittedAt.at(-1)).toBeLessThan(150_000);
    expect(longestStall(admittedAt)).toBeLessThanOrEqual(10_000);
    expect(budgets(limiter).sort()).toEqual(["rpm", "tpm"]);
  });

  it("read as any reset-less sender's, are per-minute budgets: no day budget, no stall of more than a minute", async () => {
    const limiter = new Limiter(quickStart);
    const { admittedAt } = await complete(limiter, azure, 300, 0, 30 * MINUTE, unidentified);
    expect(budgets(limiter).sort()).toEqual(["rpm", "tpm"]);
    expect(limiter.snapshot().dimensions.rpm).toMatchObject({ windowMs: MINUTE });
    // Read as 20 per minute rather than per 10 s: slower than Azure allows, but never stopped for long.
    expect(longestStall(admittedAt)).toBeLessThanOrEqual(MINUTE);
    expect(admittedAt.length).toBeGreaterThanOrEqual(300);
  });

  it("with nothing configured, learn per-minute budgets too", async () => {
    const limiter = new Limiter();
    const { admittedAt } = await complete(limiter, azure, 100, 500, 30 * MINUTE, unidentified);
    expect(budgets(limiter).sort()).toEqual(["rpm", "tpm"]);
    expect(longestStall(admittedAt)).toBeLessThanOrEqual(MINUTE);
  });
});

describe("a full bucket says nothing about its window", () => {
  const full = {
    "x-ratelimit-limit-tokens": "40000",
    "x-ratelimit-remaining-tokens": "40000",
    "x-ratelimit-reset-tokens": "0s",
  };

  it("adds no day budget beside the configured minute one", () => {
    const limiter = new Limiter({ tpm: 40_000 });
    limiter.sync(full);
    limiter.sync({ ...full, "x-ratelimit-reset-tokens": undefined as never });
    expect(budgets(limiter)).toEqual(["tpm"]);
    expect(limiter.snapshot().dimensions.tpm).toMatchObject({ limit: 40_000, windowMs: MINUTE, available: 40_000 });
  });

  it("but a window the names or the dialect tell stands", () => {
    const cerebras = new Limiter();
    cerebras.sync({ "x-ratelimit-limit-requests-day": "14400", "x-ratelimit-remaining-requests-day": "14400" });
    expect(cerebras.snapshot().dimensions["rpd"]).toMatchObject({ limit: 14_400, windowMs: DAY });
    const groq = new Limiter({ provider: "groq" });
    groq.sync({
      "x-ratelimit-limit-requests": "14400",
      "x-ratelimit-remaining-requests": "14400",
      "x-ratelimit-reset-requests": "0s",
    });
    expect(groq.snapshot().dimensions["rpd"]).toMatchObject({ limit: 14_400, windowMs: DAY });
  });
});

describe("evidence lengthens an unknown window", () => {
  const requests = (remaining: number): Headers => ({
    "x-ratelimit-limit": "100",
    "x-ratelimit-remaining": String(remaining),
  });

  it("a daily quota taken for a minute costs one 429, whose hint then tells the day", async () => {
    // 100 requests a day, counted from midnight; headers without a reset (Groq's names, the resets dropped).
    const quota: ProviderOptions = { rpd: 100, window: "fixed", dialect: "groq" };
    const noReset = ({ "x-ratelimit-reset-requests": _, ...rest }: Headers): Headers => rest;
    const limiter = new Limiter();
    // 150 calls, one a second from 10:00: the 101st is refused until midnight, 14 hours on.
    await time.timers.tickAsync(10 * HOUR);
    const run = traffic(limiter, quota, 150, 1_000, noReset);
    await time.timers.tickAsync(3 * MINUTE);
    expect(run.rejected()).toBe(1);
    expect(budgets(limiter)).toEqual(["rpd"]);
    expect(limiter.snapshot().dimensions["rpd"]).toMatchObject({ limit: 100, windowMs: DAY });
    expect(limiter.snapshot().dimensions["rpd"]!.available).toBeLessThan(1);
    expect(run.admittedAt).toHaveLength(101);
    // The rest wait for midnight, when the quota is whole again.
    await time.timers.tickAsync(DAY);
    await run.done;
    expect(run.rejected()).toBe(1);
    expect(run.admittedAt).toHaveLength(151);
    expect(run.admittedAt[101]).toBeGreaterThanOrEqual(DAY);
  });

  it("a 429 whose hint is within the window changes nothing", () => {
    const limiter = new Limiter();
    limiter.sync({ ...requests(0), "retry-after": "30" }, { status: 429, body: { error: { type: "requests" } } });
    expect(budgets(limiter)).toEqual(["rpm"]);
  });

  it("a 429 on a budget the response does not carry lengthens it, and leaves it empty", () => {
    const limiter = new Limiter();
    limiter.sync(requests(40));
    limiter.sync({ "retry-after": String(5 * 3_600) }, { status: 429, body: { error: { type: "requests" } } });
    expect(budgets(limiter)).toEqual(["rpd"]);
    expect(limiter.snapshot().dimensions["rpd"]).toMatchObject({ limit: 100, available: 0 });
  });

  it("a hint that several guessed budgets could explain lengthens none", () => {
    const limiter = new Limiter();
    const both = {
      "x-ratelimit-limit-tokens": "9000",
      "x-ratelimit-remaining-tokens": "10",
      "x-ratelimit-limit-project-tokens": "5000",
      "x-ratelimit-remaining-project-tokens": "20",
    };
    limiter.sync(both);
    limiter.sync({ ...both, "retry-after": String(5 * 3_600) }, { status: 429, body: { error: { type: "tokens" } } });
    expect(budgets(limiter).sort()).toEqual(["project-tpm", "tpm"]);
  });

  it("a whole window with the remaining not come back shows a longer one; back at the limit sooner than that, a minute again", async () => {
    const limiter = new Limiter();
    limiter.sync(requests(40)); // learns the budget
    const first = await limiter.acquire(0);
    first.sync(requests(39));
    first.release();
    await time.timers.tickAsync(70_000);
    // 70 s idle, one call, and 38 left: a minute's bucket would be full again.
    const second = await limiter.acquire(0);
    second.sync(requests(38));
    second.release();
    expect(budgets(limiter)).toEqual(["requests/1h"]);
    expect(limiter.snapshot().dimensions["requests/1h"]).toMatchObject({ limit: 100, available: 38 });
    await time.timers.tickAsync(10 * MINUTE);
    // Full again after ten minutes: an hour's bucket refills only a sixth of that.
    const third = await limiter.acquire(0);
    third.sync(requests(99));
    third.release();
    expect(budgets(limiter)).toEqual(["rpm"]);
  });

  it("a whole window it drew enough to explain shows nothing", async () => {
    const limiter = new Limiter();
    limiter.sync(requests(100));
    const first = await limiter.acquire(0);
    first.sync(requests(99));
    first.release();
    await time.timers.tickAsync(50_000);
    for (let i = 0; i < 60; i++) (await limiter.acquire(0)).release();
    await time.timers.tickAsync(20_000);
    const last = await limiter.acquire(0);
    last.sync(requests(39));
    last.release();
    expect(budgets(limiter)).toEqual(["rpm"]);
  });
});
