import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

const HEADERS = {
  "x-ratelimit-limit-requests": "60",
  "x-ratelimit-remaining-requests": "0",
  "x-ratelimit-reset-requests": "1s",
  "retry-after": "1",
};

/** `headers` behind a Proxy that counts how often its keys are listed: each listing costs O(keys). */
function counted(headers: Record<string, string>): { headers: Record<string, string>; listings: () => number } {
  let listings = 0;
  const proxy = new Proxy(headers, {
    ownKeys(target) {
      listings++;
      return Reflect.ownKeys(target);
    },
  });
  return { headers: proxy, listings: () => listings };
}

function limiter(): Limiter {
  return new Limiter({ rpm: 60, initial: "full", provider: "openai", onWarning: () => {} });
}

describe("a header object is listed once per response, whatever reads it", () => {
  it("limiter.sync, a 200 and a 429", () => {
    for (const status of [200, 429]) {
      const { headers, listings } = counted(HEADERS);
      limiter().sync(headers, { status });
      expect(listings()).toBe(1);
    }
  });

  it("reservation.sync inside run, a 429", async () => {
    const { headers, listings } = counted(HEADERS);
    await limiter().run(0, (r) => (r.sync(headers, { status: 429 }), { value: 1 }));
    expect(listings()).toBe(1);
  });

  it("a 429 thrown from run's fn, retried", async () => {
    const { headers, listings } = counted(HEADERS);
    const error = Object.assign(new Error("429"), { status: 429, headers });
    const l = limiter();
    let calls = 0;
    const run = l.run(
      0,
      () => {
        if (calls++ === 0) throw error;
        return { value: 1 };
      },
      { retry: { attempts: 1 } },
    );
    // The retry waits out the hint and the spent request budget.
    await time.timers.tickAsync(60_000);
    await expect(run).resolves.toBe(1);
    expect(listings()).toBe(1);
  });
});

describe("only a header object's own keys are read", () => {
  it("a prototype's keys are never walked (one whose listing throws changes nothing)", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("listed the prototype");
        },
      },
    );
    const headers = Object.assign(Object.create(hostile) as Record<string, string>, HEADERS);
    const warnings: Error[] = [];
    const l = new Limiter({ rpm: 60, initial: "full", provider: "openai", onWarning: (w) => warnings.push(w) });
    const view = l.sync(headers);
    expect(warnings).toEqual([]);
    expect(view.dimensions.rpm).toMatchObject({ limit: 60, remaining: 0 });
  });
});
