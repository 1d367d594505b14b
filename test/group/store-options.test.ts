import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { LimiterGroup } from "../../src/index.js";
import { RedisGroupStore, RedisStore } from "../../src/redis/index.js";

describe("LimiterGroup store option", () => {
  // Never connects: nothing here sends a command.
  const client = new Redis({ lazyConnect: true });
  afterAll(() => client.disconnect());

  it("refuses a limiter's store at once, naming the group's", () => {
    const store = new RedisStore({ client, key: "k" });
    expect(() => new LimiterGroup({ models: { a: { rpm: 1 } }, store: store as unknown as RedisGroupStore })).toThrow(
      /RedisGroupStore/,
    );
  });

  it.each([[{}], [42], [null], [{ member: () => undefined }]])("refuses %j as a store", (store) => {
    expect(() => new LimiterGroup({ models: { a: { rpm: 1 } }, store: store as RedisGroupStore })).toThrow(TypeError);
  });

  it.each([
    [{ key: 5 }, TypeError, /key/],
    [{ key: "" }, TypeError, /key/],
    [{ key: undefined }, TypeError, /key/],
    [{ client: {} }, TypeError, /client/],
    [{ leaseMs: 0 }, RangeError, /leaseMs/],
    [{ onError: "retry" }, TypeError, /onError/],
  ])("new RedisGroupStore(%j) throws at once", (bad, type, message) => {
    expect(() => new RedisGroupStore({ client, key: "k", ...(bad as object) })).toThrow(type);
    expect(() => new RedisGroupStore({ client, key: "k", ...(bad as object) })).toThrow(message);
  });

  it("makes its members on the store: tryAcquire is refused as on any shared store", async () => {
    const group = new LimiterGroup({ models: { a: { rpm: 1 } }, store: new RedisGroupStore({ client, key: "k" }) });
    expect(() => group.for("a").tryAcquire(1)).toThrow(TypeError);
    await group.close();
  });
});
