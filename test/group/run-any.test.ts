import { describe, expect, it } from "vitest";
import { LimiterGroup, type LimiterGroupOptions } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

function group(options: LimiterGroupOptions = {}): LimiterGroup {
  return new LimiterGroup({
    models: { east: { tpm: 1_000 }, west: { tpm: 1_000 } },
    initial: "full",
    arrivalDelayMs: 0,
    clock: time.clock,
    ...options,
  });
}

/** A 429 as the SDKs throw it, with a retry hint in seconds. */
function rateLimited(seconds: number): Error {
  return Object.assign(new Error("429"), { status: 429, headers: { "retry-after": String(seconds) } });
}

describe("LimiterGroup.runAny", () => {
  it("admits on the candidate predicted to admit soonest and tells fn which", async () => {
    const g = group();
    await g.for("east").acquire(900);
    const names: string[] = [];
    const value = await g.runAny(["east", "west"], 500, (reservation, name) => {
      names.push(name);
      return { value: reservation.estimate };
    });
    expect(value).toBe(500);
    expect(names).toEqual(["west"]);
    // Equal predictions (none waits): the first listed.
    await g.runAny(["west", "east"], 100, (_, name) => ({ value: names.push(name) }));
    await g.runAny(["east", "west"], 0, (_, name) => ({ value: names.push(name) }));
    expect(names).toEqual(["west", "west", "east"]);
    await g.close();
  });

  it("counts the queue: a candidate with calls waiting is predicted later", async () => {
    const g = group();
    await g.for("east").acquire(1_000);
    await g.for("west").acquire(950);
    // east would refill 100 in 6 s, but 600 are queued before: 42 s; west is 50 short: 3 s.
    const queued = g
      .for("east")
      .acquire(600)
      .catch((error: unknown) => error);
    const name = g.runAny(["east", "west"], 100, (_, chosen) => ({ value: [chosen, time.clock.now()] }));
    await time.at(3_000);
    expect(await name).toEqual(["west", 3_000]);
    await g.close();
    await expect(queued).resolves.toMatchObject({ code: "LIMITER_CLOSED" });
  });

  it("predicts in the call's own priority class: only what goes before it counts", async () => {
    const g = group({ priorities: ["interactive", "default"] });
    const spent = async (name: string) => (await g.for(name).acquire(1_000)).release();
    await spent("east");
    await spent("west");
    const queued = [
      g.for("east").acquire(900), // a default call: an interactive one goes before it
      g.for("west").acquire(300, { priority: "interactive" }),
    ].map((p) => p.catch((error: unknown) => error));
    // Interactive, 100: east 100 short (6 s), west 300 + 100 (24 s). A default call: east 900 + 100 (60 s), west 24 s.
    const interactive = g.runAny(["east", "west"], 100, (_, chosen) => ({ value: [chosen, time.clock.now()] }), {
      priority: "interactive",
      tenant: "acme",
    });
    const plain = g.runAny(["east", "west"], 100, (_, chosen) => ({ value: chosen }));
    await time.at(6_000);
    expect(await interactive).toEqual(["east", 6_000]);
    await time.at(30_000);
    expect(await plain).toBe("west");
    await g.close();
    const [east, west] = await Promise.all(queued);
    expect(east).toMatchObject({ code: "LIMITER_CLOSED" });
    expect(west).toMatchObject({ estimate: 300, admittedAtMs: 18_000 });
  });

  it("rejects a priority that is not a class with a TypeError", async () => {
    const g = group({ priorities: ["interactive", "default"] });
    const fn = () => ({ value: 1 });
    await expect(g.runAny(["east", "west"], 100, fn, { priority: "urgent" })).rejects.toThrow(TypeError);
    await expect(g.runAny(["east"], 100, fn, { tenant: 7 as unknown as string })).rejects.toThrow(TypeError);
    expect(g.snapshot().members.east!.inFlight).toBe(0);
    await g.close();
  });

  it("moves a retry to another candidate when the 429's hint is longer than moveAfterMs", async () => {
    const g = group();
    const tries: [string, number][] = [];
    const value = await g.runAny(
      ["east", "west"],
      100,
      (_, name) => {
        tries.push([name, time.clock.now()]);
        if (tries.length === 1) throw rateLimited(5);
        return { value: name };
      },
      { retry: { attempts: 2 } },
    );
    expect(value).toBe("west");
    expect(tries).toEqual([
      ["east", 0],
      ["west", 0],
    ]);
    await g.close();
  });

  it("retries on the same candidate after a hint within moveAfterMs", async () => {
    const g = group({ moveAfterMs: 2_000 });
    const tries: [string, number][] = [];
    const run = g.runAny(
      ["east", "west"],
      100,
      (_, name) => {
        tries.push([name, time.clock.now()]);
        if (tries.length === 1) throw rateLimited(1.5);
        return { value: name };
      },
      { retry: { attempts: 1 } },
    );
    await time.at(1_500);
    expect(await run).toBe("east");
    expect(tries).toEqual([
      ["east", 0],
      ["east", 1_500],
    ]);
    await g.close();
  });

  it("rethrows without retry, and after the last attempt", async () => {
    const g = group();
    const fail = (): never => {
      throw rateLimited(5);
    };
    await expect(g.runAny(["east", "west"], 100, fail)).rejects.toThrow("429");
    let calls = 0;
    const counted = (): never => {
      calls++;
      throw rateLimited(5);
    };
    const run = expect(g.runAny(["east", "west"], 100, counted, { retry: { attempts: 2 } })).rejects.toThrow("429");
    await time.at(10_000);
    await run;
    expect(calls).toBe(3);
    await g.close();
  });

  it("rejects bad input at once", async () => {
    const g = group();
    const fn = () => ({ value: 1 });
    await expect(g.runAny([], 1, fn)).rejects.toThrow(TypeError);
    await expect(g.runAny(["east", "north"], 1, fn)).rejects.toThrow(TypeError);
    await expect(g.runAny(["east"], 1, undefined as never)).rejects.toThrow(TypeError);
    await expect(g.runAny(["east"], 1, fn, { retry: { attempts: -1 } })).rejects.toThrow(RangeError);
    expect(g.snapshot().members.east!.inFlight).toBe(0);
    await g.close();
  });
});
