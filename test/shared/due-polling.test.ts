/**
 * While a booking for later waits, the limiter asks a store that can tell
 * (`SharedStore.dueIn`) every DUE_POLL_MS whether it is due sooner, and is
 * admitted as soon as it is; an answer that it is due later, or a failing
 * ask, leaves the time the booking said. Virtual time, a store in this process.
 */
import { describe, expect, it } from "vitest";
import { Limiter } from "../../src/index.js";
import { DUE_POLL_MS, type SharedLayout } from "../../src/store/shared-store.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "./in-process-store.js";

const time = useFakeTime();

/** An in-process store whose `dueIn` answers as `answer` says, recording when it was asked. */
class TellingStore extends InProcessStore {
  readonly asked: number[] = [];
  constructor(private readonly answer: (asked: number) => Promise<number>) {
    super(() => performance.now());
  }
  async dueIn(_layout: SharedLayout, marks: readonly (number | undefined)[]): Promise<number> {
    expect(marks).toHaveLength(1);
    this.asked.push(performance.now());
    return this.answer(this.asked.length);
  }
}

/** The time the second call is admitted: the first takes the whole bucket, the second is booked for 10 s later. */
async function secondAdmittedAt(store: TellingStore): Promise<number | undefined> {
  const limiter = new Limiter({ tpm: 600, store, onWarning: () => {} });
  const first = await limiter.acquire(600);
  let admittedAt: number | undefined;
  void limiter.acquire(100).then((r) => {
    admittedAt = performance.now();
    r.release();
  });
  await time.timers.tickAsync(20_000);
  first.release();
  await limiter.close();
  return admittedAt;
}

describe("a booking for later, on a store that tells when it is due", () => {
  it(`asks every ${DUE_POLL_MS} ms and is admitted once the store says it is due`, async () => {
    const store = new TellingStore(async (n) => (n < 4 ? 9_000 : 0));
    expect(await secondAdmittedAt(store)).toBe(4 * DUE_POLL_MS);
    expect(store.asked).toEqual([1, 2, 3, 4].map((n) => n * DUE_POLL_MS));
  });

  it("is not held past the time it was booked for by an answer that says later", async () => {
    const store = new TellingStore(async () => 60_000);
    expect(await secondAdmittedAt(store)).toBe(10_000);
    expect(store.asked).toHaveLength(10_000 / DUE_POLL_MS - 1);
  });

  it("keeps the time it was booked for when asking fails, and asks no more", async () => {
    const store = new TellingStore(async () => {
      throw new Error("store unreachable");
    });
    expect(await secondAdmittedAt(store)).toBe(10_000);
    expect(store.asked).toEqual([DUE_POLL_MS]);
  });
});
