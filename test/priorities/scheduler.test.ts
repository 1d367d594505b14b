import { describe, expect, it } from "vitest";
import { Scheduler, type Lane, type Place, type Scheduled } from "../../src/admission/scheduler.js";

class Entry implements Scheduled<Entry> {
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  constructor(
    readonly place: Place<Entry>,
    readonly name: string,
    readonly cost: number,
  ) {}
}

function scheduler(classes = 1): Scheduler<Entry> {
  return new Scheduler<Entry>(
    Array.from({ length: classes }, () => 0),
    (entry) => entry.cost,
  );
}

function add(queue: Scheduler<Entry>, tenant: string | undefined, name: string, cost = 1, rank = 0): Entry {
  const entry = new Entry(queue.lane(rank, tenant).unflagged, name, cost);
  queue.push(entry);
  return entry;
}

/** Serves the head until nothing waits; the names in the order served. */
function drain(queue: Scheduler<Entry>): string[] {
  const served: string[] = [];
  for (let head = queue.head; head; head = queue.head) {
    queue.remove(head, true);
    served.push(head.name);
  }
  return served;
}

function lanesOf(queue: Scheduler<Entry>, rank = 0): Map<string, Lane<Entry>> {
  return queue.bands[rank]!.tenants;
}

describe("Scheduler", () => {
  it("is one FIFO without tenants, and computes no cost", () => {
    const queue = new Scheduler<Entry>([0], () => {
      throw new Error("no cost needed");
    });
    for (let i = 0; i < 5; i++) add(queue, undefined, `e${i}`);
    expect(drain(queue)).toEqual(["e0", "e1", "e2", "e3", "e4"]);
  });

  it("forgets every tenant once its class is empty", () => {
    const queue = scheduler();
    for (let i = 0; i < 1_000; i++) add(queue, `t${i}`, `e${i}`);
    expect(lanesOf(queue).size).toBe(1_000);
    drain(queue);
    expect(lanesOf(queue).size).toBe(0);
  });

  it("forgets an idle tenant once the class has caught up with it, while the class stays busy", () => {
    const queue = scheduler();
    for (let i = 0; i < 20; i++) add(queue, "busy", `busy ${i}`);
    add(queue, "once", "once", 5);
    // The heads of both lanes; "once" is then idle with its tag 5 ahead.
    queue.remove(queue.head!, true);
    queue.remove(queue.head!, true);
    expect([...lanesOf(queue).keys()]).toEqual(["busy", "once"]);
    // The class's virtual time (the tag of the call served last) reaches 5 with the fifth call more: "once" is
    // forgotten.
    for (let i = 0; i < 4; i++) queue.remove(queue.head!, true);
    expect([...lanesOf(queue).keys()]).toEqual(["busy", "once"]);
    queue.remove(queue.head!, true);
    expect([...lanesOf(queue).keys()]).toEqual(["busy"]);
  });

  it("remembers what a returning tenant was served: it comes back behind the others until they catch up", () => {
    const queue = scheduler();
    for (let i = 0; i < 10; i++) add(queue, "a", `a${i}`);
    const big = add(queue, "b", "b big", 4);
    expect(queue.head!.name).toBe("a0");
    queue.remove(queue.head!, true);
    expect(queue.head).toBe(big);
    queue.remove(big, true);
    add(queue, "b", "b small");
    // "b" had 4: "a" has 3 more before "b" again (a at 1, b at 4; ties go to who took the tag first).
    expect(drain(queue).slice(0, 5)).toEqual(["a1", "a2", "a3", "b small", "a4"]);
  });

  it("keeps a waiter's place at the head of its lane when the one ahead leaves", () => {
    const queue = scheduler();
    const a0 = add(queue, "a", "a0");
    add(queue, "a", "a1");
    add(queue, "b", "b0");
    queue.remove(a0, false);
    // A waiter that left counts nothing for its tenant: "a" is still ahead.
    expect(drain(queue)).toEqual(["a1", "b0"]);
  });

  it("puts a retry at the head of its own lane only", () => {
    const queue = scheduler();
    add(queue, "a", "a0");
    add(queue, "b", "b0");
    const retry = new Entry(queue.lane(0, "b").unflagged, "b retry", 1);
    queue.unshift(retry);
    expect(drain(queue)).toEqual(["a0", "b retry", "b0"]);
  });

  it("peeks the order it serves, across classes and tenants, stopping where told", () => {
    const queue = scheduler(2);
    add(queue, undefined, "low 0", 1, 1);
    for (let i = 0; i < 3; i++) add(queue, "a", `a${i}`, 2);
    for (let i = 0; i < 3; i++) add(queue, "b", `b${i}`, 1);
    add(queue, undefined, "low 1", 1, 1);
    const peeked = queue.peek(100, () => true).map((entry) => entry.name);
    expect(peeked).toEqual(drainCopy(queue));
    expect(queue.peek(3, () => true)).toHaveLength(3);
    expect(queue.peek(100, (entry) => entry.name !== "b1").map((entry) => entry.name)).toEqual(["a0", "b0"]);
  });
});

/** The serving order of the same waiters, on a fresh scheduler built alike. */
function drainCopy(queue: Scheduler<Entry>): string[] {
  const copy = scheduler(queue.bands.length);
  for (const entry of queue) add(copy, entry.place.lane.tenant, entry.name, entry.cost, entry.place.lane.band.rank);
  return drain(copy);
}
