import { describe, expect, it } from "vitest";
import { Limiter, RequestTooLargeError } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();
const CLASSES = ["interactive", "default", "background"];

describe("priority options are checked at once", () => {
  it.each([
    [{ priorities: "interactive" }, TypeError, "priorities must be an array of names, got string"],
    [{ priorities: [] }, TypeError, "priorities must name at least one class"],
    [{ priorities: ["a", ""] }, TypeError, 'priorities must be non-empty strings, got string ""'],
    [{ priorities: ["a", 1] }, TypeError, "priorities must be non-empty strings, got 1"],
    [{ priorities: ["a", "b", "a"] }, TypeError, 'priorities: "a" is declared twice'],
    [
      { priorities: ["a", "b"], defaultPriority: "c" },
      TypeError,
      'defaultPriority must be one of "a", "b", got string "c"',
    ],
    [
      { headroom: { background: 0.2 } },
      TypeError,
      'headroom: "background" is not a priority class; the classes are "default"',
    ],
    [
      { priorities: CLASSES, headroom: { background: 1 } },
      RangeError,
      "headroom.background must be a fraction in [0, 1), got 1",
    ],
    [{ priorities: CLASSES, headroom: { background: -0.1 } }, RangeError, "got -0.1"],
    [{ priorities: CLASSES, headroom: { background: Number.NaN } }, RangeError, "got NaN"],
    [
      { priorities: CLASSES, headroom: { background: "0.2" } },
      TypeError,
      'headroom.background must be a number, got string "0.2"',
    ],
    [{ priorities: CLASSES, headroom: [0.2] }, TypeError, "headroom must be an object, got an array"],
  ])("%o", (options, type, message) => {
    expect(() => new Limiter({ tpm: 1_000, ...(options as object) })).toThrow(type);
    expect(() => new Limiter({ tpm: 1_000, ...(options as object) })).toThrow(message);
  });

  it("refuses an unknown priority or a tenant that is not a string at once, in acquire and run", async () => {
    const limiter = new Limiter({ tpm: 1_000, priorities: CLASSES, clock: time.clock });
    await expect(limiter.acquire(10, { priority: "urgent" })).rejects.toThrow(
      'priority must be one of "interactive", "default", "background", got string "urgent"',
    );
    await expect(limiter.run(10, () => ({ value: 1 }), { priority: "urgent" })).rejects.toThrow(TypeError);
    await expect(limiter.acquire(10, { tenant: 7 as never })).rejects.toThrow("tenant must be a string, got 7");
    await expect(limiter.run(10, () => ({ value: 1 }), { tenant: {} as never })).rejects.toThrow(TypeError);
    // Nothing was taken by the refused calls.
    expect(limiter.snapshot().dimensions.tpm!.available).toBe(1_000);
  });

  it('without priorities, the one class is "default"', async () => {
    const limiter = new Limiter({ tpm: 1_000, clock: time.clock });
    const reservation = await limiter.acquire(10, { priority: "default" });
    reservation.release();
    await expect(limiter.acquire(10, { priority: "interactive" })).rejects.toThrow(TypeError);
  });

  it("refuses at once a call its class's headroom can never hold", async () => {
    const limiter = new Limiter({ tpm: 1_000, priorities: CLASSES, headroom: { background: 0.2 }, clock: time.clock });
    const refused = limiter.acquire(900, { priority: "background" });
    await expect(refused).rejects.toThrow(RequestTooLargeError);
    await expect(refused).rejects.toThrow('Request costs 900 on "tpm" but its priority may take only 800 of it');
    // The same call in a class without headroom fits.
    (await limiter.acquire(900, { priority: "default" })).release();
  });

  it("rejects a waiting call that a lower capacity leaves out of its headroom", async () => {
    const limiter = new Limiter({
      tpm: 1_000,
      priorities: CLASSES,
      headroom: { background: 0.5 },
      initial: "empty",
      clock: time.clock,
    });
    const waiting = limiter.acquire(400, { priority: "background" });
    limiter.setLimits({ capacity: { tpm: 600 } });
    await expect(waiting).rejects.toThrow(RequestTooLargeError);
    expect(limiter.snapshot().queued).toBe(0);
  });
});
