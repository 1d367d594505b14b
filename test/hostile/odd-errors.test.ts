import { describe, expect, it } from "vitest";
import { failedResponse } from "../../src/ai/failure.js";
import { LimiterGroup } from "../../src/index.js";
import { classifyFailure } from "../../src/headers/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

/** An error whose every field read throws (a Proxy whose traps all throw). */
function hostile(): object {
  const trap = (): never => {
    throw new Error("trap");
  };
  return new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap });
}

/** An error whose `status` getter throws. */
function throwingStatus(): Error {
  const error = new Error("the caller's own");
  Object.defineProperty(error, "status", {
    get() {
      throw new Error("status getter");
    },
  });
  return error;
}

describe("a thrown value that throws when read", () => {
  it("classifyFailure reads it as nothing to retry on, never throwing", () => {
    expect(classifyFailure(hostile())).toEqual({ kind: "other" });
    expect(classifyFailure(throwingStatus())).toEqual({ kind: "other" });
    const body = new Proxy({}, { get: () => Symbol("not text"), ownKeys: hostile as never });
    expect(classifyFailure({ status: 429, headers: {}, body })).toMatchObject({ kind: "rate" });
  });

  it("the AI SDK middleware's reading of a failed call gives no response", () => {
    expect(failedResponse(hostile())).toBeUndefined();
    expect(failedResponse(Object.assign(new Error("x"), { cause: hostile() }))).toBeUndefined();
  });

  it("runAny, retrying, rejects with the caller's own error and frees the slot", async () => {
    const group = new LimiterGroup({
      models: { east: { rpm: 60, concurrency: 1 }, west: { rpm: 60, concurrency: 1 } },
      initial: "full",
      arrivalDelayMs: 0,
      clock: time.clock,
    });
    const thrown = throwingStatus();
    await expect(
      group.runAny(
        ["east", "west"],
        1,
        () => {
          throw thrown;
        },
        { retry: { attempts: 2 } },
      ),
    ).rejects.toBe(thrown);
    await expect(group.runAny(["east"], 1, () => ({ value: "next" }))).resolves.toBe("next");
    await expect(group.runAny(["west"], 1, () => ({ value: "next" }))).resolves.toBe("next");
    await group.close();
  });
});
