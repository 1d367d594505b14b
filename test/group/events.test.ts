import { describe, expect, it } from "vitest";
import { LimiterGroup, type Limiter, type LimiterGroupOptions } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

function group(options: LimiterGroupOptions = {}): LimiterGroup {
  return new LimiterGroup({
    models: { east: { tpm: 1_000 } },
    default: { tpm: 500 },
    initial: "full",
    arrivalDelayMs: 0,
    clock: time.clock,
    ...options,
  });
}

/** Whether any of `limiter`'s event channels has a listener. */
function listened(limiter: Limiter): boolean {
  const { channels } = (limiter as unknown as { events: { channels: Record<string, unknown> } }).events;
  return Object.values(channels).some((channel) => channel !== undefined);
}

describe("LimiterGroup.on", () => {
  it("tells each member's events with the member's name, members made later included", async () => {
    const g = group({ priorities: ["interactive", "default"] });
    const seen: [string, string, number][] = [];
    g.on("admitted", ({ priority, estimate }, member) => seen.push([member, priority, estimate as number]));
    await g.run("east", 100, () => ({ value: 1 }), { priority: "interactive" });
    await g.run("made-later", 200, () => ({ value: 2 }));
    expect(seen).toEqual([
      ["east", "interactive", 100],
      ["made-later", "default", 200],
    ]);
    await g.close();
  });

  it("is removed from every member by the function it returns, and adds nothing to members made after", async () => {
    const g = group();
    const east = g.for("east");
    const off = g.on("settled", () => {});
    const before = g.for("before");
    expect([listened(east), listened(before)]).toEqual([true, true]);
    off();
    off();
    expect([listened(east), listened(before), listened(g.for("after"))]).toEqual([false, false, false]);
    await g.close();
  });

  it("lets go of a member evicted to make room", async () => {
    const g = group({ maxMembers: 1 });
    const counts = new Map<string, number>();
    g.on("admitted", (_, member) => counts.set(member, (counts.get(member) ?? 0) + 1));
    const first = g.for("first");
    (await first.acquire(1)).release();
    await g.run("second", 1, () => ({ value: 1 })); // evicts "first", idle
    expect(listened(first)).toBe(false);
    expect([...counts]).toEqual([
      ["first", 1],
      ["second", 1],
    ]);
    await g.close();
  });

  it("refuses an unknown event name or a listener that is not a function, with a TypeError", async () => {
    const g = group();
    expect(() => g.on("nope" as never, () => {})).toThrow(TypeError);
    expect(() => g.on("admitted", 1 as never)).toThrow(TypeError);
    expect(listened(g.for("east"))).toBe(false);
    await g.close();
  });
});
