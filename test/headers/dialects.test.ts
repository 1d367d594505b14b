import { describe, expect, it } from "vitest";
import { parseRateLimitHeaders, type ParseOptions, type RateLimitView } from "../../src/headers/index.js";

const DAY = 86_400_000;
const MINUTE = 60_000;
/** The moment the Anthropic sample was taken: 30 s before its reset. */
const WALL = Date.UTC(2025, 1, 24, 22, 25, 2);

interface Case {
  name: string;
  headers: Record<string, string>;
  options?: ParseOptions;
  expected: Pick<RateLimitView, "provider" | "dimensions">;
}

// Samples from shared/providers.md, one or more per dialect.
const cases: Case[] = [
  {
    name: "OpenAI (60 / 59 / 1s, 150000 / 149984 / 6m0s)",
    headers: {
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-remaining-tokens": "149984",
      "x-ratelimit-reset-requests": "1s",
      "x-ratelimit-reset-tokens": "6m0s",
    },
    options: { provider: "openai" },
    expected: {
      provider: "openai",
      dimensions: {
        rpm: { unit: "requests", limit: 60, remaining: 59, resetMs: 1_000, windowMs: 60_000, windowSource: "dialect" },
        tpm: {
          unit: "tokens",
          limit: 150000,
          remaining: 149984,
          resetMs: 360_000,
          windowMs: 60_000,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "OpenAI with a project-scoped token limit",
    headers: {
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-tokens": "149000",
      "x-ratelimit-reset-tokens": "400ms",
      "x-ratelimit-limit-project-tokens": "50000",
      "x-ratelimit-remaining-project-tokens": "10000",
      "x-ratelimit-reset-project-tokens": "48s",
    },
    options: { provider: "openai" },
    expected: {
      provider: "openai",
      dimensions: {
        tpm: {
          unit: "tokens",
          limit: 150000,
          remaining: 149000,
          resetMs: 400,
          windowMs: 60_000,
          windowSource: "dialect",
        },
        "project-tpm": {
          unit: "tokens",
          limit: 50000,
          remaining: 10000,
          resetMs: 48_000,
          windowMs: 60_000,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "OpenAI's continuous-refill triples, undetected: the minute is inferred (5000 / 4999 / 12ms, 160000 / 158866 / 425ms)",
    headers: {
      "x-ratelimit-limit-requests": "5000",
      "x-ratelimit-remaining-requests": "4999",
      "x-ratelimit-reset-requests": "12ms",
      "x-ratelimit-limit-tokens": "160000",
      "x-ratelimit-remaining-tokens": "158866",
      "x-ratelimit-reset-tokens": "425ms",
    },
    expected: {
      provider: "unknown",
      dimensions: {
        rpm: {
          unit: "requests",
          limit: 5000,
          remaining: 4999,
          resetMs: 12,
          windowMs: 60_000,
          windowSource: "inferred",
        },
        tpm: {
          unit: "tokens",
          limit: 160000,
          remaining: 158866,
          resetMs: 425,
          windowMs: 60_000,
          windowSource: "inferred",
        },
      },
    },
  },
  {
    name: "Groq (14400 / 14370 / 2m59.56s is a day; tokens per minute)",
    headers: {
      "x-ratelimit-limit-requests": "14400",
      "x-ratelimit-remaining-requests": "14370",
      "x-ratelimit-reset-requests": "2m59.56s",
      "x-ratelimit-limit-tokens": "18000",
      "x-ratelimit-remaining-tokens": "17997",
      "x-ratelimit-reset-tokens": "7.66s",
    },
    options: { provider: "groq" },
    expected: {
      provider: "groq",
      dimensions: {
        rpd: {
          unit: "requests",
          limit: 14400,
          remaining: 14370,
          resetMs: 179_560,
          windowMs: DAY,
          windowSource: "dialect",
        },
        tpm: {
          unit: "tokens",
          limit: 18000,
          remaining: 17997,
          resetMs: 7_660,
          windowMs: 60_000,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "Groq's requests undetected: the triple still says a day",
    headers: {
      "x-ratelimit-limit-requests": "14400",
      "x-ratelimit-remaining-requests": "14370",
      "x-ratelimit-reset-requests": "2m59.56s",
    },
    expected: {
      provider: "unknown",
      dimensions: {
        rpd: {
          unit: "requests",
          limit: 14400,
          remaining: 14370,
          resetMs: 179_560,
          windowMs: DAY,
          windowSource: "inferred",
        },
      },
    },
  },
  {
    name: "Azure: 20 requests whose reset implies a 10 s window (a 120 RPM deployment)",
    headers: {
      "x-ratelimit-limit-requests": "20",
      "x-ratelimit-remaining-requests": "19",
      "x-ratelimit-reset-requests": "0.5",
      "x-ratelimit-remaining-tokens": "119000",
    },
    options: { provider: "azure" },
    expected: {
      provider: "azure",
      dimensions: {
        "requests/10s": {
          unit: "requests",
          limit: 20,
          remaining: 19,
          resetMs: 500,
          windowMs: 10_000,
          windowSource: "inferred",
        },
        tpm: { unit: "tokens", remaining: 119000, windowMs: 60_000, windowSource: "dialect" },
      },
    },
  },
  {
    name: "Azure: remaining only, per minute",
    headers: { "x-ratelimit-remaining-requests": "119", "x-ratelimit-remaining-tokens": "119000" },
    options: { provider: "azure" },
    expected: {
      provider: "azure",
      dimensions: {
        rpm: { unit: "requests", remaining: 119, windowMs: 60_000, windowSource: "dialect" },
        tpm: { unit: "tokens", remaining: 119000, windowMs: 60_000, windowSource: "dialect" },
      },
    },
  },
  {
    name: "Anthropic (input 80000 / 78000 / RFC 3339, output 16000): remaining taken 500 lower",
    headers: {
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "49",
      "anthropic-ratelimit-requests-reset": "2025-02-24T22:25:03Z",
      "anthropic-ratelimit-input-tokens-limit": "80000",
      "anthropic-ratelimit-input-tokens-remaining": "78000",
      "anthropic-ratelimit-input-tokens-reset": "2025-02-24T22:25:32Z",
      "anthropic-ratelimit-output-tokens-limit": "16000",
      "anthropic-ratelimit-output-tokens-remaining": "0",
      "anthropic-ratelimit-output-tokens-reset": "2025-02-24T22:26:02Z",
      "anthropic-ratelimit-tokens-limit": "16000",
      "anthropic-ratelimit-tokens-remaining": "0",
      "anthropic-priority-input-tokens-limit": "10000",
    },
    options: { wallNow: WALL },
    expected: {
      provider: "anthropic",
      dimensions: {
        rpm: { unit: "requests", limit: 50, remaining: 49, resetMs: 1_000, windowMs: 60_000, windowSource: "dialect" },
        itpm: {
          unit: "input",
          limit: 80000,
          remaining: 77500,
          resetMs: 30_000,
          windowMs: 60_000,
          windowSource: "dialect",
        },
        otpm: {
          unit: "output",
          limit: 16000,
          remaining: 0,
          resetMs: 60_000,
          windowMs: 60_000,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "Anthropic tokens-* alone",
    headers: {
      "anthropic-ratelimit-tokens-limit": "100000",
      "anthropic-ratelimit-tokens-remaining": "100000",
      "anthropic-ratelimit-tokens-reset": "2025-02-24T22:25:02Z",
    },
    options: { wallNow: WALL },
    expected: {
      provider: "anthropic",
      dimensions: {
        tpm: { unit: "tokens", limit: 100000, remaining: 99500, resetMs: 0, windowMs: 60_000, windowSource: "dialect" },
      },
    },
  },
  {
    name: "Cerebras (float seconds; -day and -minute)",
    headers: {
      "x-ratelimit-limit-requests-day": "14400",
      "x-ratelimit-remaining-requests-day": "14399",
      "x-ratelimit-reset-requests-day": "33011.382867097855",
      "x-ratelimit-limit-tokens-minute": "60000",
      "x-ratelimit-remaining-tokens-minute": "59000",
      "x-ratelimit-reset-tokens-minute": "11.382867097854614",
    },
    expected: {
      provider: "cerebras",
      dimensions: {
        rpd: {
          unit: "requests",
          limit: 14400,
          remaining: 14399,
          resetMs: 33011382.867097855,
          windowMs: DAY,
          windowSource: "dialect",
        },
        tpm: {
          unit: "tokens",
          limit: 60000,
          remaining: 59000,
          resetMs: 11382.867097854614,
          windowMs: 60_000,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "OpenRouter (epoch ms on a day boundary)",
    headers: { "X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "49", "X-RateLimit-Reset": "1788220800000" },
    options: { provider: "openrouter", wallNow: 1788220800000 - 3 * 3_600_000 },
    expected: {
      provider: "openrouter",
      dimensions: {
        rpd: {
          unit: "requests",
          limit: 50,
          remaining: 49,
          resetMs: 3 * 3_600_000,
          windowMs: DAY,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "OpenRouter (epoch ms on a minute boundary)",
    headers: { "X-RateLimit-Limit": "20", "X-RateLimit-Remaining": "5", "X-RateLimit-Reset": "1788220860000" },
    options: { provider: "openrouter", wallNow: 1788220860000 - 25_000 },
    expected: {
      provider: "openrouter",
      dimensions: {
        rpm: { unit: "requests", limit: 20, remaining: 5, resetMs: 25_000, windowMs: 60_000, windowSource: "dialect" },
      },
    },
  },
  {
    name: "Together (per second; the tighter of static and dynamic)",
    headers: {
      "x-ratelimit-limit": "10",
      "x-ratelimit-remaining": "9",
      "x-ratelimit-reset": "0.1",
      "x-ratelimit-limit-dynamic": "8",
      "x-ratelimit-remaining-dynamic": "7",
      "x-tokenlimit-limit": "2000",
      "x-tokenlimit-remaining": "1900",
    },
    expected: {
      provider: "together",
      dimensions: {
        "requests/1s": {
          unit: "requests",
          limit: 8,
          remaining: 7,
          resetMs: 100,
          windowMs: 1_000,
          windowSource: "dialect",
        },
        "tokens/1s": { unit: "tokens", limit: 2000, remaining: 1900, windowMs: 1_000, windowSource: "dialect" },
      },
    },
  },
  {
    name: "Mistral (-req-minute, -tokens-minute, -tokens-month)",
    headers: {
      "x-ratelimit-limit-req-minute": "60",
      "x-ratelimit-remaining-req-minute": "59",
      "x-ratelimit-limit-tokens-minute": "500000",
      "x-ratelimit-remaining-tokens-minute": "499000",
      "x-ratelimit-limit-tokens-month": "1000000000",
      "x-ratelimit-remaining-tokens-month": "999000000",
    },
    expected: {
      provider: "mistral",
      dimensions: {
        rpm: { unit: "requests", limit: 60, remaining: 59, windowMs: 60_000, windowSource: "dialect" },
        tpm: { unit: "tokens", limit: 500000, remaining: 499000, windowMs: 60_000, windowSource: "dialect" },
        "tokens/30d": { unit: "tokens", limit: 1e9, remaining: 999e6, windowMs: 30 * DAY, windowSource: "dialect" },
      },
    },
  },
  {
    name: "IETF draft-10 (RateLimit-Policy + RateLimit)",
    headers: {
      "RateLimit-Policy": '"burst";q=100;w=60,"daily";q=1000;w=86400',
      RateLimit: '"burst";r=50;t=30, "daily";r=700;t=1000',
    },
    expected: {
      provider: "ietf",
      dimensions: {
        rpm: {
          unit: "requests",
          limit: 100,
          remaining: 50,
          resetMs: 30_000,
          windowMs: 60_000,
          windowSource: "dialect",
        },
        rpd: {
          unit: "requests",
          limit: 1000,
          remaining: 700,
          resetMs: 1_000_000,
          windowMs: DAY,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "IETF units: concurrent-requests is concurrency, content-bytes is ignored, no w is inferred",
    headers: {
      "RateLimit-Policy": '"c";q=5;qu="concurrent-requests", "bytes";q=1000000;w=60;qu="content-bytes", "open";q=10',
      RateLimit: '"c";r=4, "bytes";r=5, "open";r=5;t=5, "orphan";r=1',
    },
    expected: {
      provider: "ietf",
      dimensions: {
        concurrency: { unit: "concurrency", limit: 5, remaining: 4 },
        "requests/10s": {
          unit: "requests",
          limit: 10,
          remaining: 5,
          resetMs: 5_000,
          windowMs: 10_000,
          windowSource: "inferred",
        },
      },
    },
  },
  {
    name: "IETF policies sharing a name are told apart by their policy",
    headers: { "RateLimit-Policy": '"a";q=100;w=60, "b";q=50;w=60', RateLimit: '"b";r=1' },
    expected: {
      provider: "ietf",
      dimensions: {
        rpm: { unit: "requests", limit: 100, windowMs: 60_000, windowSource: "dialect" },
        "rpm:b": { unit: "requests", limit: 50, remaining: 1, windowMs: 60_000, windowSource: "dialect" },
      },
    },
  },
  {
    name: "IETF older drafts (RateLimit-Limit / -Remaining / -Reset, window from w)",
    headers: { "RateLimit-Limit": "100, 100;w=60", "RateLimit-Remaining": "40", "RateLimit-Reset": "20" },
    expected: {
      provider: "ietf",
      dimensions: {
        rpm: {
          unit: "requests",
          limit: 100,
          remaining: 40,
          resetMs: 20_000,
          windowMs: 60_000,
          windowSource: "dialect",
        },
      },
    },
  },
  {
    name: "IETF older drafts (window from an old-style RateLimit-Policy)",
    headers: {
      "RateLimit-Limit": "50",
      "RateLimit-Remaining": "50",
      "RateLimit-Reset": "0",
      "RateLimit-Policy": "10;w=1, 50;w=3600",
    },
    expected: {
      provider: "ietf",
      dimensions: {
        "requests/1h": {
          unit: "requests",
          limit: 50,
          remaining: 50,
          resetMs: 0,
          windowMs: 3_600_000,
          windowSource: "dialect",
        },
      },
    },
  },
];

describe("parseRateLimitHeaders: one sample per dialect", () => {
  it.each(cases)("$name", ({ headers, options, expected }) => {
    expect(parseRateLimitHeaders(headers, { wallNow: WALL, ...options })).toEqual(expected);
  });
});

describe("provider detection", () => {
  it.each([
    [{ "anthropic-ratelimit-requests-limit": "50" }, "anthropic"],
    [{ "x-ratelimit-limit-requests-day": "14400" }, "cerebras"],
    [{ "x-ratelimit-limit-tokens-day": "1000000" }, "cerebras"],
    [{ "x-ratelimit-limit-req-minute": "60" }, "mistral"],
    [{ "x-ratelimit-limit-tokens-month": "1000" }, "mistral"],
    [{ "x-tokenlimit-limit": "2000", "x-ratelimit-limit": "10" }, "together"],
    [{ ratelimit: '"a";r=1' }, "ietf"],
    [{ "RateLimit-Policy": '"a";q=1' }, "ietf"],
    [{ "RateLimit-Limit": "10" }, "ietf"],
    [{ "x-ratelimit-limit-requests": "60", "apim-request-id": "7d3e" }, "azure"],
    [{ "x-ratelimit-limit-requests": "60", "x-ms-region": "Sweden Central" }, "azure"],
    [{ "x-ratelimit-remaining-tokens": "900", "azureml-model-session": "d089" }, "azure"],
    [{ "x-ratelimit-limit-req-minute": "60", "apim-request-id": "7d3e" }, "mistral"], // a model served on Azure keeps its names' dialect
    [{ "x-ratelimit-limit-requests": "60" }, "unknown"],
    [{ "x-ratelimit-limit": "20" }, "unknown"],
    [{ "x-ratelimit-limit-tokens-minute": "60000" }, "unknown"],
    [{ "content-type": "application/json" }, "unknown"],
  ] as const)("%j -> %s", (headers, provider) => {
    expect(parseRateLimitHeaders(headers).provider).toBe(provider);
  });

  it("reads windows a header name spells even when the sender is unknown", () => {
    const view = parseRateLimitHeaders({
      "x-ratelimit-limit-tokens-minute": "60000",
      "x-ratelimit-remaining-tokens-minute": "1",
    });
    expect(view.dimensions).toEqual({
      tpm: { unit: "tokens", limit: 60000, remaining: 1, windowMs: 60_000, windowSource: "dialect" },
    });
  });

  it("reads the bare x-ratelimit-* names of an unknown sender as requests, an untold window taken for a minute", () => {
    const view = parseRateLimitHeaders({ "x-ratelimit-limit": "20", "x-ratelimit-remaining": "20" });
    expect(view.dimensions).toEqual({
      rpm: { unit: "requests", limit: 20, remaining: 20, windowMs: MINUTE, windowSource: "assumed" },
    });
  });

  it("reads Azure's headers, detected by the ones only Azure sends, as Azure's: per minute, a sub-window allowance", () => {
    const view = parseRateLimitHeaders({
      "apim-request-id": "7d3e",
      "x-ratelimit-limit-requests": "20",
      "x-ratelimit-remaining-requests": "19",
    });
    expect(view).toEqual({
      provider: "azure",
      dimensions: { rpm: { unit: "requests", limit: 20, remaining: 19, windowMs: MINUTE, windowSource: "dialect" } },
    });
  });

  it("lets options.provider pick the dialect over detection", () => {
    const headers = { "anthropic-ratelimit-requests-limit": "50", "x-ratelimit-limit-requests": "60" };
    expect(parseRateLimitHeaders(headers, { provider: "openai" })).toEqual({
      provider: "openai",
      dimensions: { rpm: { unit: "requests", limit: 60, windowMs: 60_000, windowSource: "dialect" } },
    });
  });

  it("detects from the header names, whatever the input's shape", () => {
    const pairs: [string, string][] = [
      ["Anthropic-RateLimit-Requests-Limit", "50"],
      ["anthropic-ratelimit-requests-remaining", "10"],
    ];
    const views = [new Headers(pairs), new Map(pairs), pairs, Object.fromEntries(pairs)].map((h) =>
      parseRateLimitHeaders(h),
    );
    for (const view of views) {
      expect(view).toEqual({
        provider: "anthropic",
        dimensions: { rpm: { unit: "requests", limit: 50, remaining: 10, windowMs: 60_000, windowSource: "dialect" } },
      });
    }
  });
});
