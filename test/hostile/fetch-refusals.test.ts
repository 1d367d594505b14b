import { describe, expect, it } from "vitest";
import { LimiterError, WaitTimeoutError } from "../../src/index.js";
import { limitedFetch } from "../../src/fetch/index.js";
import { MAX_REPORTED_WAIT_MS } from "../../src/core/errors.js";

/**
 * What limiter.fetch() answers for refusals it cannot trust: a value branded by another copy of the
 * package with a code it does not answer, and waits whose numbers are out of every range. A refusal's hint is
 * always a whole number of ms from 1 to a month; anything that is no refusal rejects as it is.
 */

const URL_CHAT = "https://api.openai.com/v1/chat/completions";
const init: RequestInit = {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }], max_tokens: 10 }),
};

function refusing(error: unknown): typeof globalThis.fetch {
  return limitedFetch(() => ({ acquire: () => Promise.reject(error) }), {
    fetch: () => Promise.reject(new Error("sent")),
  });
}

/** An error as another copy of the package brands it, with `code`. */
function branded(code: string): Error {
  const error = Object.assign(new Error(`forged ${code}`), { code });
  Object.defineProperty(error, Symbol.for("llm-limiter.error-code"), { value: code });
  return error;
}

describe("limiter.fetch() refusals, hostile", () => {
  it.each(["toString", "constructor", "__proto__", "hasOwnProperty", "RESERVATION_RELEASED", "STORE_UNAVAILABLE"])(
    "a branded error of code %s is no refusal: it rejects as it is",
    async (code) => {
      const error = branded(code);
      expect(error).toBeInstanceOf(LimiterError);
      await expect(refusing(error)(URL_CHAT, init)).rejects.toBe(error);
    },
  );

  it("a refusal branded by another copy answers as this copy's would", async () => {
    const response = await refusing(branded("LIMITER_CLOSED"))(URL_CHAT, init);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe("llm-limiter: forged LIMITER_CLOSED");
  });

  it.each([
    ["NaN", Number.NaN, undefined],
    ["Infinity", Infinity, undefined],
    ["in the past", 10, -1e15],
    ["at the edge of a Date", 10, 8.64e15],
    ["a month and a day away", 32 * 86_400_000, undefined],
  ] as const)(
    "a wait %s: a hint of 1 ms to a month, whole, and a body that parses",
    async (_name, waitMs, availableAt) => {
      const error = new WaitTimeoutError("tpm", waitMs, 100, { windowMs: 86_400_000, availableAt });
      const response = await refusing(error)(URL_CHAT, init);
      expect(response.status).toBe(429);
      const ms = Number(response.headers.get("retry-after-ms"));
      expect(Number.isInteger(ms)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(1);
      expect(ms).toBeLessThanOrEqual(MAX_REPORTED_WAIT_MS);
      expect(response.headers.get("retry-after")).toBe(String(Math.ceil(ms / 1000)));
      const body = (await response.json()) as { error: { wait_ms: unknown; available_at: unknown } };
      expect(body.error.wait_ms === null || Number.isFinite(body.error.wait_ms)).toBe(true);
      expect(body.error.available_at === null || typeof body.error.available_at === "string").toBe(true);
    },
  );
});
