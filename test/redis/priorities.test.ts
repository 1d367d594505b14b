import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { Limiter, type Reservation } from "../../src/index.js";
import { ADAPTER_NAMES, describeRedis, levels, sleep, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";

const DAY = 86_400_000;
const CLASSES = ["interactive", "default", "background"];

describeRedis.each(ADAPTER_NAMES)("priorities through Redis (%s)", (adapter) => {
  const store = storeFactory(adapter);

  it("keeps a class's headroom for every replica: background is given back from the reserve", async () => {
    const key = `priorities:${randomUUID()}`;
    // A daily budget: nothing refills meanwhile to speak of.
    const options = { tpd: 1_000, priorities: CLASSES, headroom: { background: 0.2 }, onWarning: () => {} };
    const background = new Limiter({ ...options, store: await store({ key }) });
    const interactive = new Limiter({ ...options, store: await store({ key }) });
    const admitted: Reservation[] = [];
    const waiting = Array.from({ length: 10 }, () =>
      background.acquire(100, { priority: "background" }).then((r) => void admitted.push(r)),
    );
    const probe = await store({ key });
    const shape = layout([dim("tpd", 1_000, DAY)]);
    const reserveBack = async (): Promise<boolean> => ((await levels(probe, shape))[0] ?? 0) >= 200 - 1e-6;
    // Eight fit; the ninth's take went into the reserve and is given back (a round trip on a loaded machine).
    for (let i = 0; i < 500 && (admitted.length < 8 || !(await reserveBack())); i++) await sleep(10);
    expect(admitted).toHaveLength(8);
    // The other replica's interactive call finds the reserve at once.
    const urgent = await interactive.acquire(200, { priority: "interactive", maxWaitMs: 0 });
    await sleep(50);
    expect(admitted).toHaveLength(8);
    // The two background waiters hold nothing in the store: their takes went back.
    const [level] = await levels(probe, shape);
    expect(level).toBeGreaterThanOrEqual(-1e-6);
    expect(level).toBeLessThan(1);
    urgent.release();
    await background.close();
    await interactive.close();
    await Promise.allSettled(waiting);
  });
});
