import { expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { ADAPTER_NAMES, describeRedis, levels, sleep, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";

const DAY = 86_400_000;

describeRedis.each(ADAPTER_NAMES)("close() (%s)", (adapter) => {
  const store = storeFactory(adapter);

  it("resolves once the settles and releases made so far are written", async () => {
    const shared = await store();
    // Writes answered late, as over a slow network: close() must still wait for them.
    const answered: string[] = [];
    const slow = <T>(name: string, write: Promise<T>): Promise<T> =>
      write.then((reply) => sleep(50).then(() => (answered.push(name), reply)));
    const adjust = shared.adjust.bind(shared);
    const release = shared.release.bind(shared);
    shared.adjust = (...args) => slow("adjust", adjust(...args));
    shared.release = (...args) => slow("release", release(...args));
    const limiter = new Limiter({ tpd: 1_000, concurrency: 4, store: shared });
    const reservations = await Promise.all([limiter.acquire(600), limiter.acquire(300)]);
    reservations[0]!.settle(100);
    reservations[1]!.refund();
    for (const r of reservations) r.release();
    // The settles go out as one write a microtask later, the releases at once: close waits for both.
    await limiter.close();
    expect(answered.sort()).toEqual(["adjust", "release", "release"]);
    // Per day: the refill since is far below the tolerance. 1,000 less the 100 the first call used.
    expect((await levels(shared, layout([dim("tpd", 1_000, DAY)])))[0]).toBeCloseTo(900, 0);
  });

  it("resolves at once with nothing to write, and again when called twice", async () => {
    const limiter = new Limiter({ tpd: 1_000, store: await store() });
    await limiter.close();
    await limiter.close();
  });
});
