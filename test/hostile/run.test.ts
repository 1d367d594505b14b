import { describe, expect, it } from "vitest";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import { flush, useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** An object every read of which throws: a Proxy whose traps all throw. */
function hostileProxy(): object {
  const trap = (): never => {
    throw new Error("trap");
  };
  return new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap });
}

/** An error whose `status` (or another field) throws when read. */
function throwingGetter(field: string): Error {
  const error = new Error("the caller's own");
  Object.defineProperty(error, field, {
    get() {
      throw new Error(`${field} getter`);
    },
  });
  return error;
}

/** Headers whose iterator throws after yielding one header (what a broken Headers polyfill can do). */
function throwingIterator(): Iterable<[string, string]> {
  return {
    *[Symbol.iterator]() {
      yield ["x-ratelimit-remaining-requests", "0"];
      throw new Error("iterator");
    },
  };
}

/** A Headers-like object whose `get` and iteration throw. */
class BrokenHeaders {
  get(): never {
    throw new Error("get");
  }
  entries(): Iterator<[string, string]> {
    throw new Error("entries");
  }
  [Symbol.iterator](): Iterator<[string, string]> {
    return this.entries();
  }
}

function setUp(options: LimiterOptions = {}): { limiter: Limiter; warnings: Error[] } {
  const warnings: Error[] = [];
  const limiter = new Limiter({
    rpm: 60,
    concurrency: 1,
    initial: "full",
    provider: "openai",
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  return { limiter, warnings };
}

const thrown: [string, () => unknown][] = [
  ["a throwing status getter", () => throwingGetter("status")],
  ["a throwing headers getter", () => Object.assign(throwingGetter("headers"), { status: 429 })],
  ["a Proxy whose every trap throws", hostileProxy],
  [
    "headers whose iterator throws",
    () => Object.assign(new Error("the caller's own"), { status: 429, headers: throwingIterator() }),
  ],
  [
    "Headers-like whose get and iterator throw",
    () => Object.assign(new Error("the caller's own"), { status: 429, headers: new BrokenHeaders() }),
  ],
  [
    "headers that are a hostile Proxy",
    () => Object.assign(new Error("the caller's own"), { status: 429, headers: hostileProxy() }),
  ],
  [
    "a body whose getter throws",
    () => {
      const error = Object.assign(new Error("the caller's own"), { status: 429, headers: {} });
      return Object.defineProperty(error, "error", {
        get() {
          throw new Error("body");
        },
      });
    },
  ],
];

describe("run(): whatever fn throws, the caller gets it and the slot is freed", () => {
  for (const [what, make] of thrown) {
    for (const style of ["async", "sync"] as const) {
      it(`${what} (${style} throw), with and without retries`, async () => {
        const { limiter } = setUp();
        for (const options of [undefined, { retry: { attempts: 2 } }, { refundOnError: true }]) {
          const error = make();
          const fn =
            style === "async"
              ? async () => {
                  throw error;
                }
              : () => {
                  throw error;
                };
          let run: Promise<unknown> | undefined;
          expect(() => (run = limiter.run(0, fn, options))).not.toThrow();
          // Boxed and compared with Object.is: resolving with a hostile Proxy, or a matcher, would read it.
          const outcome = await run!.then(
            () => ({ e: "resolved" }),
            (e: unknown) => ({ e }),
          );
          expect(Object.is(outcome.e, error)).toBe(true);
          expect(limiter.snapshot()).toMatchObject({ inFlight: 0, concurrency: { limit: 1, available: 1 } });
        }
      });
    }
  }

  it("fn that released its reservation itself, then threw, with refundOnError: its own error", async () => {
    const { limiter } = setUp();
    const error = new Error("mine");
    const outcome = await limiter
      .run(
        0,
        async (r) => {
          r.release();
          throw error;
        },
        { refundOnError: true },
      )
      .catch((e: unknown) => e);
    expect(outcome).toBe(error);
  });

  it("an onWarning that throws does not replace the caller's error either", async () => {
    const limiter = new Limiter({
      rpm: 60,
      concurrency: 1,
      initial: "full",
      onWarning: () => {
        throw new Error("onWarning");
      },
    });
    const error = throwingGetter("status");
    const outcome = await limiter
      .run(0, async () => {
        throw error;
      })
      .catch((e: unknown) => e);
    expect(outcome).toBe(error);
    expect(limiter.snapshot().inFlight).toBe(0);
  });

  it("the thrown error's fields are read once, behind a guard: the warning names it", async () => {
    const { limiter, warnings } = setUp();
    await limiter.run(0, () => Promise.reject(throwingGetter("status"))).catch(() => {});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBeInstanceOf(TypeError);
    expect(warnings[0]!.message).toMatch(/^the thrown error could not be read/);
    expect((warnings[0]!.cause as Error).message).toBe("status getter");
  });

  it("a 429's pause is in force before the slot is freed: the next waiter waits for the hint", async () => {
    const { limiter } = setUp();
    const error = Object.assign(new Error("429"), { status: 429, headers: { "retry-after": "3" } });
    const first = limiter.run(0, async () => {
      throw error;
    });
    let admittedAt: number | undefined;
    const second = limiter.run(0, () => ((admittedAt = time.clock.now()), { value: 1 }));
    await expect(first).rejects.toBe(error);
    await flush(time.timers);
    expect(admittedAt).toBeUndefined();
    await time.timers.tickAsync(3_000);
    await second;
    expect(admittedAt).toBe(3_000);
  });
});

describe("sync(): a hostile input changes nothing and does not throw", () => {
  const inputs: [string, () => [unknown, unknown?]][] = [
    ["a Proxy of headers", () => [hostileProxy()]],
    ["headers whose iterator throws after a header", () => [throwingIterator()]],
    [
      "a Map whose iterator throws",
      () => [
        Object.assign(new Map([["x-ratelimit-remaining-requests", "0"]]), {
          [Symbol.iterator]: () => {
            throw new Error("map");
          },
        }),
      ],
    ],
    ["Headers-like whose get and iterator throw", () => [new BrokenHeaders()]],
    [
      "a header object with a throwing getter",
      () => [
        {
          "x-ratelimit-remaining-requests": "0",
          get "x-ratelimit-limit-requests"(): string {
            throw new Error("getter");
          },
        },
      ],
    ],
    [
      "options with a throwing status",
      () => [
        { "x-ratelimit-remaining-requests": "0" },
        {
          get status(): number {
            throw new Error("status");
          },
        },
      ],
    ],
    ["options that are a hostile Proxy", () => [{ "x-ratelimit-remaining-requests": "0" }, hostileProxy()]],
    [
      "a 429 body whose getter throws",
      () => [
        { "retry-after": "60" },
        {
          status: 429,
          body: {
            get error(): never {
              throw new Error("body");
            },
          },
        },
      ],
    ],
    ["a 429 body that is a hostile Proxy", () => [{ "retry-after": "60" }, { status: 429, body: hostileProxy() }]],
  ];

  for (const [what, make] of inputs) {
    it(`${what}: limiter.sync and reservation.sync`, async () => {
      const { limiter, warnings } = setUp({ concurrency: undefined });
      const before = limiter.snapshot();
      const [headers, options] = make();
      let view: unknown;
      expect(() => (view = limiter.sync(headers as never, options as never))).not.toThrow();
      expect(view).toEqual({ provider: "unknown", dimensions: {} });
      const r = await limiter.acquire(0);
      expect(() => r.sync(headers as never, options as never)).not.toThrow();
      r.refund();
      r.release();
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toBeInstanceOf(TypeError);
      // Nothing lowered, nothing paused: the next call is admitted at once.
      expect(limiter.snapshot()).toEqual(before);
      expect(limiter.tryAcquire(0)).toBeDefined();
    });
  }

  it("an unknown provider is still the caller's TypeError", () => {
    const { limiter } = setUp();
    expect(() => limiter.sync({}, { provider: "nope" as never })).toThrow(TypeError);
  });
});
