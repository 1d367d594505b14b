import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import type { Estimate, LimiterSnapshot, Reservation, Usage } from "../../src/index.js";
import type { RateLimitView } from "../../src/headers/index.js";
import { ARRIVAL_DELAY_MS } from "../defaults.js";
import {
  anthropicClient,
  openAIClient,
  refill,
  spend,
  splitEstimate,
  tokensEstimate,
  useSimulator,
} from "./helpers.js";

// Real SDKs on a real socket: levels refill while the test runs, and the
// limiter brings a response's remaining forward by the refill since the request
// was admitted (the provider may have stamped it then). Every upper bound on a
// level allows for the refill over the time actually measured from admission.

/** A completed call: its headers, as read and as parsed, and the limiter once the call was released. */
interface AfterCall {
  headers: Headers;
  view: RateLimitView;
  snapshot: LimiterSnapshot;
  sinceAdmissionMs: number;
  /** What the call settled. */
  used: Usage;
}

/**
 * The manual form for a completed (non-streaming) response: its headers
 * already count the call's actual usage, so settle it first, then sync.
 */
async function callAndSync(
  limiter: Limiter,
  estimate: Estimate,
  call: (reservation: Reservation) => Promise<{ used: Usage; headers: Headers }>,
): Promise<AfterCall> {
  const start = performance.now();
  const reservation = await limiter.acquire(estimate);
  try {
    const { used, headers } = await call(reservation);
    reservation.settle(used);
    const view = reservation.sync(headers);
    reservation.release();
    return { headers, view, snapshot: limiter.snapshot(), sinceAdmissionMs: performance.now() - start, used };
  } finally {
    reservation.release(); // idempotent; frees the slot if the call threw
  }
}

/** What `used` costs on dimension `name` (rpm, tpm, itpm or otpm). */
function costOn(name: string, used: Usage): number {
  if (name === "rpm") return 1;
  if (typeof used === "number") return used;
  return name === "itpm" ? used.input : name === "otpm" ? used.output : used.input + used.output;
}

/**
 * The limiter learned `limit` for `name`, and its level dropped to the remaining
 * the headers report, plus refill. The calls use enough that the drop outlasts
 * the refill of even a slow call.
 */
function expectSynced({ view, snapshot, sinceAdmissionMs, used }: AfterCall, name: string, limit: number): void {
  const reported = view.dimensions[name]?.remaining;
  if (reported === undefined) throw new Error(`no ${name} remaining in the headers`);
  expect(snapshot.dimensions[name]).toMatchObject({ limit, capacity: limit });
  expect(snapshot.dimensions[name]?.available).toBeLessThan(limit);
  // Within the arrival delay of its admission, what the call used still counts as on its way (it caps the refill).
  const onItsWay = sinceAdmissionMs < ARRIVAL_DELAY_MS ? costOn(name, used) : 0;
  expect(snapshot.dimensions[name]?.available).toBeGreaterThanOrEqual(reported - onItsWay);
  expect(snapshot.dimensions[name]?.available).toBeLessThanOrEqual(reported + refill(limit, sinceAdmissionMs));
}

describe("headers through .withResponse(), OpenAI", () => {
  const sim = useSimulator({ rpm: 6, tpm: 20_000, latencyMs: 2, answerTokens: () => 2_000 });

  it("learns the provider's lower limits and drops the levels to its remaining", async () => {
    const openai = openAIClient(sim().server);
    // Configured above the key's real quota: only the headers can tell it otherwise.
    const limiter = new Limiter({ rpm: 1_000, tpm: 100_000, provider: "openai" });
    const messages = [{ role: "user" as const, content: "Summarise the rate-limit headers at length." }];
    const after = await callAndSync(limiter, tokensEstimate({ messages }, 2_500), async (reservation) => {
      const { data, response } = await openai.chat.completions
        .create({ model: "gpt-sim", messages, max_tokens: 2_500 }, { signal: reservation.signal })
        .withResponse();
      if (!data.usage) throw new Error("no usage in the response");
      return { used: data.usage.total_tokens, headers: response.headers };
    });

    expect(after.view.dimensions.tpm?.remaining).toBe(Number(after.headers.get("x-ratelimit-remaining-tokens")));
    expect(after.view.dimensions.rpm?.remaining).toBe(Number(after.headers.get("x-ratelimit-remaining-requests")));
    expectSynced(after, "tpm", 20_000);
    expectSynced(after, "rpm", 6);
  });
});

describe("headers through .withResponse(), Anthropic", () => {
  const sim = useSimulator({
    rpm: 5,
    itpm: 40_000,
    otpm: 8_000,
    dialect: "anthropic",
    latencyMs: 2,
    answerTokens: () => 2_000,
  });

  it("learns the provider's lower limits and drops the levels to its remaining", async () => {
    const anthropic = anthropicClient(sim().server);
    const limiter = new Limiter({ rpm: 100, itpm: 100_000, otpm: 16_000, provider: "anthropic" });
    // ~2_000 input tokens: enough to show through Anthropic's rounding to the thousand.
    const system = "Answer from the rate-limit documentation. ".repeat(190);
    const prompt = { system, messages: [{ role: "user" as const, content: "Name one token bucket property." }] };
    const after = await callAndSync(limiter, splitEstimate(prompt, 2_500), async (reservation) => {
      const { data, response } = await anthropic.messages
        .create({ model: "claude-sim", max_tokens: 2_500, ...prompt }, { signal: reservation.signal })
        .withResponse();
      return { used: { input: data.usage.input_tokens, output: data.usage.output_tokens }, headers: response.headers };
    });

    // Anthropic rounds token remainders to the thousand; the parser reads them lower, never higher.
    const header = (name: string): number => Number(after.headers.get(`anthropic-ratelimit-${name}-remaining`));
    expect(after.view.dimensions.itpm?.remaining).toBeLessThanOrEqual(header("input-tokens"));
    expect(after.view.dimensions.otpm?.remaining).toBeLessThanOrEqual(header("output-tokens"));
    expect(after.view.dimensions.rpm?.remaining).toBe(header("requests"));
    expectSynced(after, "itpm", 40_000);
    expectSynced(after, "otpm", 8_000);
    expectSynced(after, "rpm", 5);
  });
});

// BUG (see the report): a completed response's headers already count the call's
// actual usage, yet `run` settles after `fn` has synced them and gives back the
// unused part of the estimate a second time. It shows whenever the sync lowers
// the level, as it does on a key that another client also draws on.
describe("headers of a completed call on a shared key, OpenAI", () => {
  const sim = useSimulator({ tpm: 20_000, latencyMs: 2, answerTokens: () => 12 });

  it("leaves the level no higher than the provider's remaining once run() has settled", async () => {
    const { provider, server } = sim();
    const openai = openAIClient(server);
    const limiter = new Limiter({ tpm: 20_000, provider: "openai" });
    await spend(provider, 10_000);
    const messages = [{ role: "user" as const, content: "Is this key shared?" }];
    // The second refund is max_tokens less the 12-token answer: far more than any refill while the call ran.
    const maxTokens = 2_500;
    const start = performance.now();
    let tokensLeft: number | undefined;
    await limiter.run(tokensEstimate({ messages }, maxTokens), async (reservation) => {
      const { data, response } = await openai.chat.completions
        .create({ model: "gpt-sim", messages, max_tokens: maxTokens }, { signal: reservation.signal })
        .withResponse();
      reservation.sync(response.headers);
      tokensLeft = Number(response.headers.get("x-ratelimit-remaining-tokens"));
      return { value: data, used: data.usage?.total_tokens };
    });
    if (tokensLeft === undefined) throw new Error("the call never synced");
    expect(tokensLeft).toBeLessThan(15_000); // the other client's use shows, so the sync lowered the level
    expect(limiter.snapshot().dimensions.tpm?.available).toBeLessThanOrEqual(
      tokensLeft + refill(20_000, performance.now() - start),
    );
  });
});
