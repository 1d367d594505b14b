import { describe, expect, it } from "vitest";
import { Limiter, LimiterGroup } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

useFakeTime();

describe('a name "__proto__" never vanishes', () => {
  it("a listed group member of that name is in snapshot(), as an own property", () => {
    // JSON.parse makes "__proto__" an own key, as a config file read at start-up would.
    const group = new LimiterGroup({ models: JSON.parse('{"__proto__": {"rpm": 10}, "b": {"rpm": 3}}') });
    const { members } = group.snapshot();
    expect(Object.keys(members)).toEqual(["__proto__", "b"]);
    expect(Object.hasOwn(members, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(members)).toBe(Object.prototype);
    expect(members["__proto__"]!.dimensions.rpm!.limit).toBe(10);
  });

  it("a member made from default under that name is in snapshot()", async () => {
    const group = new LimiterGroup({ models: { a: { rpm: 1 } }, default: { rpm: 4 } });
    await group.run("__proto__", 0, () => ({ value: 1 }));
    expect(Object.keys(group.snapshot().members)).toEqual(["a", "__proto__"]);
  });

  it("a custom dimension of that name is refused with a TypeError saying so", () => {
    const limits = JSON.parse('{"__proto__": {"unit": "tokens", "limit": 10, "windowMs": 1000}}');
    expect(() => new Limiter({ limits })).toThrow(
      new TypeError('limits.__proto__: "__proto__" cannot name a dimension'),
    );
  });
});
