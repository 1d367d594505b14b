import { describe, expect, it } from "vitest";
import { LimiterGroup, type LimiterGroupOptions } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

function group(options: LimiterGroupOptions): LimiterGroup {
  return new LimiterGroup({ initial: "full", arrivalDelayMs: 0, clock: time.clock, ...options });
}

describe("LimiterGroup members", () => {
  it("makes an unknown model from `default`, and refuses one without it with a TypeError", async () => {
    const withDefault = group({ models: { a: { rpm: 10 } }, default: { rpm: 3 } });
    expect(withDefault.for("other").snapshot().dimensions.rpm!.limit).toBe(3);
    expect(withDefault.for("other")).toBe(withDefault.for("other"));
    const without = group({ models: { a: { rpm: 10 } } });
    expect(() => without.for("other")).toThrow(TypeError);
    await expect(without.run("other", 0, () => ({ value: 1 }))).rejects.toThrow(TypeError);
    await Promise.all([withDefault.close(), without.close()]);
  });

  it("caps the members made from `default`, evicting the one idle longest", async () => {
    const g = group({ default: { rpm: 10 }, maxMembers: 2 });
    const x = g.for("x");
    const y = g.for("y");
    const held = await y.acquire(0);
    g.for("x"); // x is now the most recently used, but y is busy: x goes
    g.for("z");
    expect(Object.keys(g.snapshot().members).sort()).toEqual(["y", "z"]);
    await expect(x.acquire(0)).rejects.toMatchObject({ code: "LIMITER_CLOSED" });
    const heldZ = await g.for("z").acquire(0);
    // Both busy: no room for another.
    expect(() => g.for("w")).toThrow(RangeError);
    held.release();
    heldZ.release();
    g.for("w");
    expect(Object.keys(g.snapshot().members).sort()).toEqual(["w", "z"]);
    await g.close();
  });

  it("does not evict members listed in `models`", async () => {
    const g = group({ models: { a: { rpm: 1 }, b: { rpm: 1 } }, default: { rpm: 1 }, maxMembers: 1 });
    g.for("x");
    g.for("y");
    expect(Object.keys(g.snapshot().members).sort()).toEqual(["a", "b", "y"]);
    await g.close();
  });

  it("reports every member and the shared dimensions in snapshot()", async () => {
    const g = group({ models: { a: { rpm: 10 } }, shared: { rpd: 1_000, tpd: 2_000_000 }, default: { rpm: 5 } });
    g.for("x");
    const snapshot = g.snapshot();
    // What a dimension nothing has used or waited for reports of its last window.
    const idle = { utilisation: 0, queued: 0 };
    expect(Object.keys(snapshot.members)).toEqual(["a", "x"]);
    expect(snapshot.members.a).toEqual({
      dimensions: {
        rpm: { limit: 10, windowMs: 60_000, capacity: 10, available: 10, ...idle },
        "project-rpd": { limit: 1_000, windowMs: 86_400_000, capacity: 1_000, available: 1_000, ...idle },
        "project-tpd": { limit: 2_000_000, windowMs: 86_400_000, capacity: 2_000_000, available: 2_000_000, ...idle },
      },
      queued: 0,
      inFlight: 0,
      oldestWaitMs: 0,
    });
    expect(snapshot.shared).toEqual({
      rpd: { limit: 1_000, windowMs: 86_400_000, capacity: 1_000, available: 1_000 },
      tpd: { limit: 2_000_000, windowMs: 86_400_000, capacity: 2_000_000, available: 2_000_000 },
    });
    await g.close();
  });

  it("refuses bad options at once with TypeError or RangeError, leaving no timer behind", () => {
    const bad: [unknown, ErrorConstructor, RegExp][] = [
      [null, TypeError, /must be an object/],
      [{ rpm: 10 }, TypeError, /`rpm` is a budget/],
      [{ store: {} }, TypeError, /store/],
      [{ shared: { concurrency: 2 } }, TypeError, /shared: unknown option "concurrency"/],
      [{ shared: { tpd: -1 } }, RangeError, /shared: tpd/],
      [{ models: { a: { rpm: 10, provider: "openai" } } }, TypeError, /models\["a"\]: unknown option "provider"/],
      [{ models: { a: { limits: { "project-x": { unit: "tokens", limit: 1, windowMs: 1 } } } } }, TypeError, /shared/],
      [{ models: { a: { rpm: 10 }, b: { rpm: "ten" } } }, TypeError, /group member "b": rpm/],
      [{ models: { a: { capacity: { "project-tpd": 5 } } }, shared: { tpd: 10 } }, TypeError, /capacity.project-tpd/],
      [{ models: { a: { rpm: 10 } }, maxQueue: -1 }, RangeError, /new LimiterGroup\(\): maxQueue/],
      [{ models: { a: { rpm: 10 } }, tmp: 1 }, TypeError, /unknown option "tmp"/],
      [{ default: { rpm: 1 }, maxMembers: 0 }, RangeError, /maxMembers/],
      [{ default: { rpm: "x" } }, TypeError, /default: rpm/],
      [{ default: { rpm: 1 }, tmp: 1 }, TypeError, /unknown option "tmp"/],
      [{ maxWaitMs: -1 }, RangeError, /maxWaitMs/],
      [{ maxMembers: "5" }, TypeError, /maxMembers/],
      [{ moveAfterMs: -1 }, RangeError, /moveAfterMs/],
    ];
    for (const [options, type, message] of bad) {
      expect(() => new LimiterGroup(options as LimiterGroupOptions), JSON.stringify(options)).toThrow(type);
      expect(() => new LimiterGroup(options as LimiterGroupOptions)).toThrow(message);
    }
    expect(time.timers.countTimers()).toBe(0);
  });
});
