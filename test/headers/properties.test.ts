import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseGoDuration } from "../../src/headers/durations.js";
import { parseRateLimitHeaders, type ProviderName, type RateLimitView } from "../../src/headers/index.js";
import { parseReset } from "../../src/headers/reset.js";
import { parseList } from "../../src/headers/structured.js";
import { parseHttpDate, parseRfc3339 } from "../../src/headers/timestamps.js";
import { inferWindow, UNKNOWN_WINDOW } from "../../src/headers/window.js";

const PROVIDERS: (ProviderName | undefined)[] = [
  undefined,
  "openai",
  "azure",
  "anthropic",
  "groq",
  "cerebras",
  "openrouter",
  "together",
  "mistral",
  "ietf",
];
const DAY = 86_400_000;
const PLAUSIBLE = [1_000, 10_000, 60_000, 3_600_000, DAY];
const NOW = Date.UTC(2025, 1, 24, 22, 25, 2);

const NAMES = [
  ...[
    "requests",
    "tokens",
    "project-tokens",
    "requests-day",
    "requests-minute",
    "tokens-minute",
    "tokens-day",
    "req-minute",
    "tokens-month",
  ].flatMap((s) => [`x-ratelimit-limit-${s}`, `x-ratelimit-remaining-${s}`, `x-ratelimit-reset-${s}`]),
  ...["requests", "tokens", "input-tokens", "output-tokens"].flatMap((s) =>
    ["limit", "remaining", "reset"].map((f) => `anthropic-ratelimit-${s}-${f}`),
  ),
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-limit-dynamic",
  "x-tokenlimit-limit",
  "x-tokenlimit-remaining",
  "ratelimit",
  "ratelimit-policy",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "retry-after",
  "retry-after-ms",
  "x-should-retry",
  "date",
];

/** Go-duration text as Go prints a duration rounded to ms. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = ((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, "");
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

const sfItem = fc.oneof(
  fc.string().map((s) => JSON.stringify(s)),
  fc.integer({ min: -5, max: 100_000 }).map(String),
  fc.constantFrom('"requests"', '"concurrent-requests"', '"content-bytes"', "?1", ":abc=:"),
);
const sfMember = fc
  .tuple(sfItem, fc.array(fc.tuple(fc.constantFrom("q", "w", "r", "t", "qu", "pk"), sfItem), { maxLength: 4 }))
  .map(([item, params]) => item + params.map(([k, v]) => `;${k}=${v}`).join(""));

const values = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 300 }),
  fc.double().map(String),
  fc.integer({ min: -10, max: 2e6 }).map(String),
  fc.nat({ max: 1e8 }).map(goDuration),
  fc.date({ min: new Date(0), max: new Date(Date.UTC(2200, 0)), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ min: new Date(0), max: new Date(Date.UTC(2200, 0)), noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.integer({ min: 0, max: 4e12 }).map(String),
  fc.array(sfMember, { maxLength: 4 }).map((m) => m.join(", ")),
  fc.constantFrom("true", "false", "0", "", "NaN", "Infinity", "-0", "1e999"),
);
const headerName = fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 30 }));
const headerValue = fc.oneof(values, fc.array(values, { maxLength: 3 }), fc.double(), fc.constant(undefined));
const entries = fc.array(fc.tuple(headerName, headerValue), { maxLength: 25 });
const shapes = entries.chain((pairs) =>
  fc.constantFrom(
    Object.fromEntries(pairs.map(([k, v], i) => [i % 2 ? k.toUpperCase() : k, v])),
    new Map(pairs),
    pairs,
  ),
);

function expectSane(view: RateLimitView): void {
  const check = (n: number | undefined) => {
    if (n !== undefined) {
      expect(Number.isFinite(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
    }
  };
  check(view.retryAfterMs);
  check(view.serverDate);
  for (const [name, d] of Object.entries(view.dimensions)) {
    expect(name.length).toBeGreaterThan(0);
    for (const n of [d.limit, d.remaining, d.windowMs, d.resetMs]) check(n);
    if (d.limit !== undefined && d.remaining !== undefined) expect(d.remaining).toBeLessThanOrEqual(d.limit);
    expect(d.limit !== undefined || d.remaining !== undefined).toBe(true);
    if (d.unit === "concurrency") expect(d.windowMs).toBeUndefined();
    else expect(d.windowMs).toBeGreaterThan(0);
    expect(d.windowSource === undefined).toBe(d.windowMs === undefined);
  }
}

describe("properties", () => {
  it("arbitrary header maps, in every shape and dialect, never throw and stay sane", () => {
    fc.assert(
      fc.property(
        shapes,
        fc.constantFrom(...PROVIDERS),
        fc.integer({ min: 0, max: 5e12 }),
        (headers, provider, wallNow) => {
          expectSane(parseRateLimitHeaders(headers, { provider, wallNow }));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("arbitrary fetch Headers never throw and stay sane", () => {
    const valid = fc.array(fc.tuple(fc.constantFrom(...NAMES), values), { maxLength: 20 }).map((pairs) => {
      const h = new Headers();
      for (const [k, v] of pairs) {
        try {
          h.append(k, v);
        } catch {
          // not a legal header value: fetch would never deliver it
        }
      }
      return h;
    });
    fc.assert(
      fc.property(valid, (headers) => expectSane(parseRateLimitHeaders(headers, { wallNow: NOW }))),
      { numRuns: 500 },
    );
  });

  it("arbitrary strings never throw the low-level parsers, which return finite, non-negative numbers", () => {
    const text = fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), values);
    fc.assert(
      fc.property(text, (s) => {
        const d = parseGoDuration(s);
        const r = parseReset(s, { nowMs: NOW, nowResolutionMs: 0 });
        for (const n of [d?.ms, d?.resolutionMs, r?.ms, r?.resolutionMs]) {
          if (n !== undefined) expect(Number.isFinite(n) && n >= 0).toBe(true);
        }
        for (const n of [parseRfc3339(s)?.epochMs, parseHttpDate(s)]) {
          if (n !== undefined) expect(Number.isFinite(n)).toBe(true);
        }
        parseList(s);
      }),
      { numRuns: 3_000 },
    );
  });

  it("an inferred window is exact; one the triple cannot tell is the shortest it allows: never longer than the true one, a minute at least", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(...PLAUSIBLE),
        (limit, fraction, windowMs) => {
          const used = Math.max(1, Math.min(limit - 1, Math.round(fraction * limit)));
          const resetMs = Math.round((used * windowMs) / limit); // the server's time to full, in ms
          const w = inferWindow(limit, limit - used, parseGoDuration(goDuration(resetMs)), UNKNOWN_WINDOW);
          if (w.windowSource === "inferred") {
            expect(w.windowMs).toBe(windowMs);
          } else {
            expect(w.windowSource).toBe("assumed");
            expect(w.windowMs).toBeLessThanOrEqual(Math.max(windowMs, UNKNOWN_WINDOW.windowMs));
            expect(w.windowMs).toBeGreaterThanOrEqual(UNKNOWN_WINDOW.windowMs);
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it("the triple's window is recovered through the whole parser when the reset is precise enough", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 1, max: 99 }),
        fc.constantFrom(...PLAUSIBLE),
        (limit, percent, windowMs) => {
          const used = Math.ceil((limit * percent) / 100);
          const resetMs = Math.round((used * windowMs) / limit);
          // Go prints whole seconds as "2s": a precision of a second needs at least 3 s to be told.
          fc.pre(resetMs >= 3 && (resetMs % 1000 !== 0 || resetMs >= 3000));
          const view = parseRateLimitHeaders({
            "x-ratelimit-limit-tokens": String(limit),
            "x-ratelimit-remaining-tokens": String(limit - used),
            "x-ratelimit-reset-tokens": goDuration(resetMs),
          });
          const name = {
            1_000: "tokens/1s",
            10_000: "tokens/10s",
            60_000: "tpm",
            3_600_000: "tokens/1h",
            [DAY]: "tpd",
          }[windowMs];
          expect(view.dimensions[name ?? ""]).toMatchObject({ windowMs, windowSource: "inferred" });
        },
      ),
    );
  });
});

describe("bounded work", () => {
  const huge = "9".repeat(5 * 1024 * 1024);

  it("a 5 MB value in any header is dropped without being read", () => {
    for (const provider of PROVIDERS) {
      const headers = Object.fromEntries(NAMES.map((name) => [name, huge]));
      expect(parseRateLimitHeaders(headers, { provider })).toEqual({ provider: provider ?? "unknown", dimensions: {} });
      expect(parseRateLimitHeaders(new Map([["x-ratelimit-limit-requests", [huge]]]), { provider }).dimensions).toEqual(
        {},
      );
    }
  });

  it("a 5 MB value among good ones leaves the good ones intact", () => {
    const view = parseRateLimitHeaders(
      {
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": huge,
        "x-ratelimit-reset-requests": "1s",
      },
      { provider: "openai" },
    );
    expect(view.dimensions.rpm).toEqual({
      unit: "requests",
      limit: 60,
      resetMs: 1_000,
      windowMs: 60_000,
      windowSource: "dialect",
    });
  });

  it("a flood of headers is read only up to the cap", () => {
    let pulled = 0;
    const flood: Iterable<[string, string]> = {
      *[Symbol.iterator]() {
        for (let i = 0; i < 1_000_000; i++) {
          pulled++;
          yield [`x-junk-${i}`, "1"];
        }
      },
    };
    expect(parseRateLimitHeaders(flood).dimensions).toEqual({});
    expect(pulled).toBeLessThanOrEqual(256);
  });
});
