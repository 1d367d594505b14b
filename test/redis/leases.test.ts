import { expect, it } from "vitest";
import { ADAPTER_NAMES, describeRedis, sleep, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { bookOne } from "./book-one.js";

describeRedis.each(ADAPTER_NAMES)("concurrency leases (%s)", (adapter) => {
  const store = storeFactory(adapter);
  const shape = layout([dim("rpm", 100)], { concurrency: 2 });

  it("admits up to the limit, then takes nothing and says when the earliest lease expires", async () => {
    const s = await store({ leaseMs: 5_000 });
    const start = performance.now();
    const [a, b] = [await bookOne(s, shape, [1]), await bookOne(s, shape, [1])];
    expect(a.lease).toEqual(expect.any(String));
    expect(b.lease).toEqual(expect.any(String));
    expect(a.lease).not.toBe(b.lease);
    const full = await bookOne(s, shape, [1]);
    expect(full).toMatchObject({ booked: false, dimension: "concurrency", lease: undefined, marks: undefined });
    // Two taken, the third not: 98 and what refilled meanwhile (100 a minute; round trips over HTTP take a while).
    expect(full.levels[0]).toBeLessThan(98 + ((performance.now() - start) * 100) / 60_000 + 0.01);
    expect(full.waitMs).toBeGreaterThan(4_000);
    expect(full.waitMs).toBeLessThanOrEqual(5_000);
  });

  it("frees a slot on release", async () => {
    const s = await store();
    const a = await bookOne(s, shape, [1]);
    await bookOne(s, shape, [1]);
    await s.release(a.lease!);
    expect((await bookOne(s, shape, [1])).lease).toEqual(expect.any(String));
  });

  it("books without a lease when the buckets lack room; lease() takes one when due", async () => {
    const s = await store();
    const tight = layout([dim("rpm", 1)], { concurrency: 1 });
    const first = await bookOne(s, tight, [1]);
    const booked = await bookOne(s, tight, [1]);
    expect(booked).toMatchObject({ booked: true, dimension: "rpm", lease: undefined });
    const none = await s.lease(tight);
    expect(none.lease).toBeUndefined();
    expect(none.retryMs).toBeGreaterThan(0);
    expect(none.retryMs).toBeLessThanOrEqual(s.leaseMs);
    await s.release(first.lease!);
    expect((await s.lease(tight)).lease).toEqual(expect.any(String));
  });

  it("keeps renewed leases alive past their first expiry", async () => {
    const s = await store({ leaseMs: 1_000 });
    const leases = [(await bookOne(s, shape, [1])).lease!, (await bookOne(s, shape, [1])).lease!];
    await sleep(600);
    await s.renew(leases);
    await sleep(600);
    expect(await bookOne(s, shape, [1])).toMatchObject({ booked: false, dimension: "concurrency" });
    await sleep(1_000);
    expect((await bookOne(s, shape, [1])).lease).toEqual(expect.any(String));
  });

  it("frees a crashed holder's slot when its lease expires, and never revives it on renew", async () => {
    const s = await store({ leaseMs: 300 });
    const single = layout([dim("rpm", 100)], { concurrency: 1 });
    const crashed = (await bookOne(s, single, [1])).lease!;
    expect(await bookOne(s, single, [1])).toMatchObject({ booked: false });
    await sleep(400);
    expect((await bookOne(s, single, [1])).lease).toEqual(expect.any(String));
    await s.renew([crashed]);
    expect((await s.lease(single)).lease).toBeUndefined();
  });

  it("takes no lease and needs no round trip when concurrency is not limited", async () => {
    const s = await store();
    const free = layout([dim("rpm", 100)]);
    expect((await bookOne(s, free, [1])).lease).toBeUndefined();
    expect(await s.lease(free)).toEqual({ lease: undefined, retryMs: 0 });
  });
});
