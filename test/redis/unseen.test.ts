import { expect, it } from "vitest";
import { ADAPTER_NAMES, describeRedis, levels, sleep, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { bookOne } from "./book-one.js";

describeRedis.each(ADAPTER_NAMES)("draws booked for later, unseen by the provider (%s)", (adapter) => {
  const store = storeFactory(adapter);
  // One request per 200 ms, and 1,000 tokens a minute: a request booked for later waits on requests while the
  // tokens bucket it draws from when due refills too little to overflow meanwhile (nothing is taken off for that).
  const both = layout([dim("rps", 1, 200), dim("tokens", 1_000)]);

  it("holds a refund under capacity less the booked draw until the draw may have arrived", async () => {
    const s = await store();
    expect(await bookOne(s, both, [1, 500])).toMatchObject({ booked: true, waitMs: 0 });
    const later = await bookOne(s, both, [1, 100]);
    expect(later).toMatchObject({ booked: true, dimension: "rps" });
    expect(later.levels[1]).toBeCloseTo(400, -1);
    // The first call used nothing: its 500 tokens come back. The provider's bucket, which has not seen the 100
    // booked, fills up; here the level stops 100 short of it, and refill cannot lift it.
    await s.adjust(both, [0, 500]);
    expect((await levels(s, both))[1]).toBe(900);
  });

  it("lets a booking for later given back lift that hold at once", async () => {
    const s = await store();
    await bookOne(s, both, [1, 500]);
    await bookOne(s, both, [1, 100]);
    // Given back (its waiter left) with the first call's refund: the provider will never see that draw.
    await s.adjust(both, [1, 600], [1, 100]);
    expect((await levels(s, both))[1]).toBe(1_000);
  });

  it("holds each booked draw until it may have arrived, in two slots", async () => {
    const s = await store();
    await bookOne(s, both, [1, 0]);
    // Three requests booked for later, due about 200, 400 and 600 ms on: the third joins the later slot.
    for (let i = 0; i < 3; i++) expect((await bookOne(s, both, [1, 100])).booked).toBe(true);
    await s.adjust(both, [0, 1_000]);
    expect((await levels(s, both))[1]).toBe(700);
    // Once the first is due (no arrival delay: it arrives then), the slot that held it ends; the other holds 200.
    await sleep(300);
    await s.adjust(both, [0, 1_000]);
    expect((await levels(s, both))[1]).toBe(800);
  });
});
