import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { LimiterClosedError } from "../../src/index.js";
import { ADAPTER_NAMES, describeRedis, sleep } from "../redis/helpers.js";
import { redisBackend } from "./backends.js";
import { conformance } from "./conformance.js";
import { stopwatch } from "./stopwatch.js";

describeRedis.each(ADAPTER_NAMES)("conformance on real time: Redis store (%s)", (adapter) =>
  conformance(redisBackend(adapter)),
);

describeRedis("limiters on one Redis key", () => {
  const backend = redisBackend("ioredis");

  it("a closed limiter's pending booking goes back to the others", async () => {
    const options = { limits: { r: { unit: "requests", limit: 1, windowMs: 1_000 } } } as const;
    const key = `e2e:${randomUUID()}`;
    const [a, b] = await Promise.all([backend.limiterOn(key, options), backend.limiterOn(key, options)]);
    const watch = stopwatch();
    (await a.acquire(0)).release();
    const pending = a.acquire(0).catch((e: unknown) => e); // booked for 1 s from now
    await sleep(100);
    a.close();
    expect(await pending).toBeInstanceOf(LimiterClosedError);
    // b takes the slot a gave up, at 1 s; with a's booking kept it would wait until 2 s.
    (await b.acquire(0)).release();
    expect(watch.ms()).toBeGreaterThanOrEqual(1_000 - 5);
    expect(watch.ms()).toBeLessThan(1_600);
  });
});
