/**
 * Credit through a shared store: a caller admitting one request after another
 * books room ahead with its request and is admitted from it with no round
 * trip (callers in a loop, with their whole queue); what it holds goes back
 * when it expires, on a pause, a lowered level, a booking for later and
 * close, and header sync takes it off readings.
 * Virtual time, a store in this process; levels checked against arithmetic
 * written here.
 */
import { describe, expect, it } from "vitest";
import { ALARM_LATENESS_MS } from "../../src/admission/alarm.js";
import { CREDIT_HOT_MS, CREDIT_MS, CREDIT_REQUESTS, CREDIT_STREAK } from "../../src/admission/credit.js";
import { DEFAULT_ARRIVAL_DELAY_MS } from "../../src/config.js";
import { Limiter, type LimiterOptions } from "../../src/index.js";
import type { Booking, SharedLayout } from "../../src/store/shared-store.js";
import { useFakeTime } from "../fake-time.js";
import { InProcessStore } from "./in-process-store.js";

const time = useFakeTime();

/** An in-process store that records the requests and layout of every booking call, answered after `latencyMs`. */
class RecordingStore extends InProcessStore {
  readonly bookings: { requests: number; arrivalDelayMs: number | undefined }[] = [];
  latencyMs = 0;
  constructor() {
    super(() => performance.now());
  }
  override async book(layout: SharedLayout, requests: readonly (readonly number[])[]): Promise<Booking> {
    this.bookings.push({ requests: requests.length, arrivalDelayMs: layout.arrivalDelayMs });
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    return super.book(layout, requests);
  }
}

const RPM = { name: "rpm", limit: 6_000, windowMs: 60_000, capacity: 6_000 };
const TPM = { name: "tpm", limit: 64_000, windowMs: 60_000, capacity: 64_000 };
/** Requests one after another that book alone: the next is the last of a streak, and books credit. */
const WARM = CREDIT_STREAK;

const layoutOf = (...dimensions: (typeof RPM)[]): SharedLayout => ({
  dimensions,
  concurrency: undefined,
  initialFraction: 1,
});

function limiterOn(store: InProcessStore, options: LimiterOptions = { rpm: RPM.limit }): Limiter {
  return new Limiter({ initial: 1, ...options, store, onWarning: () => {} });
}

/** `count` admissions, one after another with `gapMs` between them: each awaited, then released. */
async function oneAfterAnother(limiter: Limiter, count: number, estimate = 0, gapMs = 0): Promise<void> {
  for (let i = 0; i < count; i++) {
    (await limiter.acquire(estimate)).release();
    if (gapMs > 0) await time.timers.tickAsync(gapMs);
  }
}

describe("credit through a shared store", () => {
  it(`admits a caller's requests one after another with one booking per ${CREDIT_REQUESTS + 1}`, async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store);
    await oneAfterAnother(limiter, 100);
    // The first few book alone; from the one after CREDIT_STREAK short gaps, each booking takes its request and
    // credit for 16 more.
    const slices = Math.ceil((100 - WARM) / (CREDIT_REQUESTS + 1));
    expect(store.bookings).toHaveLength(WARM + slices);
    expect(store.bookings.slice(0, WARM).map((b) => b.requests)).toEqual(Array<number>(WARM).fill(1));
    // A booking with credit holds refill back as long as its calls may take to reach the provider (the alarm's
    // lateness, for a booking for later, besides).
    expect(store.bookings.slice(WARM)).toEqual(
      Array.from({ length: slices }, () => ({
        requests: 2,
        arrivalDelayMs: DEFAULT_ARRIVAL_DELAY_MS + ALARM_LATENESS_MS + CREDIT_MS,
      })),
    );
    // The store counted the credit as drawn; snapshot() counts what this process holds.
    const held = CREDIT_REQUESTS * slices - (100 - store.bookings.length);
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBe(RPM.capacity - 100 - held);
    expect(limiter.snapshot().dimensions.rpm!.available).toBe(RPM.capacity - 100);
    await limiter.close();
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBe(RPM.capacity - 100);
  });

  it("callers in a loop, admitted together, book their next batch ahead with this one", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store);
    const callers = 32;
    await Promise.all(Array.from({ length: callers }, () => oneAfterAnother(limiter, 20)));
    // Each round, the callers queue again as soon as they are admitted, the first with nothing queued: after
    // CREDIT_STREAK such rounds a booking takes the whole queue and credit for as many more, and the next round is
    // admitted from it, with no booking.
    expect(store.bookings.map((b) => b.requests)).toEqual([
      ...Array<number>(WARM).fill(callers),
      ...Array<number>((20 - WARM) / 2 + 0.5).fill(callers + 1),
    ]);
    await limiter.close();
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBe(RPM.capacity - callers * 20);
  });

  it("books no credit for a queue that never empties: more callers than a booking takes", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store);
    // 200 callers, a booking takes 128: those admitted queue again behind the rest, and nobody finds the queue empty.
    await Promise.all(Array.from({ length: 200 }, () => oneAfterAnother(limiter, 6)));
    expect(store.bookings).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        requests: i < 9 ? 128 : 1_200 - 9 * 128,
        arrivalDelayMs: DEFAULT_ARRIVAL_DELAY_MS + ALARM_LATENESS_MS,
      })),
    );
    await limiter.close();
  });

  it("books credit for a caller whose round trips take longer than 1 ms", async () => {
    const store = new RecordingStore();
    store.latencyMs = 5;
    const limiter = limiterOn(store);
    const done = oneAfterAnother(limiter, 40);
    await time.timers.runAllAsync();
    await done;
    const slices = Math.ceil((40 - WARM) / (CREDIT_REQUESTS + 1));
    expect(store.bookings.map((b) => b.requests)).toEqual([
      ...Array<number>(WARM).fill(1),
      ...Array<number>(slices).fill(2),
    ]);
    await limiter.close();
  });

  it(`books every request of a caller that comes back more than ${CREDIT_HOT_MS} ms after its last admission`, async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store);
    await oneAfterAnother(limiter, 20, 0, 2);
    expect(store.bookings.map((b) => b.requests)).toEqual(Array<number>(20).fill(1));
    await limiter.close();
  });

  it(`books every request of runs of ${WARM} one after another: calls that happen to meet`, async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store);
    for (let run = 0; run < 5; run++) {
      await oneAfterAnother(limiter, WARM);
      await time.timers.tickAsync(CREDIT_HOT_MS + 1);
    }
    expect(store.bookings.map((b) => b.requests)).toEqual(Array<number>(5 * WARM).fill(1));
    await limiter.close();
  });

  it(`gives unused credit back ${CREDIT_MS} ms after the booking that started it`, async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store, { rpm: RPM.limit, initial: 0.9 });
    await oneAfterAnother(limiter, WARM + 2);
    const drawn = WARM + 2 + (CREDIT_REQUESTS - 1);
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBe(5_400 - drawn);
    await time.timers.tickAsync(CREDIT_MS - 1);
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBeCloseTo(5_400 - drawn + (CREDIT_MS - 1) / 10, 9);
    await time.timers.tickAsync(1);
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBeCloseTo(5_400 - (WARM + 2) + CREDIT_MS / 10, 9);
    await limiter.close();
  });

  it("books none while a bucket would be under half full after it", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store, { rpm: RPM.limit, initial: 0.5 });
    await oneAfterAnother(limiter, 10);
    expect(store.bookings.map((b) => b.requests)).toEqual(Array<number>(10).fill(1));
    await limiter.close();
  });

  it("books none with concurrency limited (credit holds no leases)", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store, { rpm: RPM.limit, concurrency: 4 });
    await oneAfterAnother(limiter, 10);
    expect(store.bookings.map((b) => b.requests)).toEqual(Array<number>(10).fill(1));
    await limiter.close();
  });

  it("books no more of a bucket than 1/64 of its capacity", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store, { tpm: TPM.limit, arrivalDelayMs: 0 });
    await oneAfterAnother(limiter, WARM + 1, 100);
    // 16 requests of 100 would be 1,600; a 64th of 64,000 is 1,000: 10 more like it.
    expect(store.levelOf(layoutOf(TPM), "tpm")).toBe(TPM.capacity - (WARM + 1) * 100 - 1_000);
    await oneAfterAnother(limiter, 10, 100);
    expect(store.bookings).toHaveLength(WARM + 1);
    await limiter.close();
    expect(store.levelOf(layoutOf(TPM), "tpm")).toBe(TPM.capacity - (WARM + 11) * 100);
  });

  it("header sync takes the credit held off the remaining a response reports", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store, { rpm: RPM.limit, provider: "openai", arrivalDelayMs: 0 });
    const headers = { "x-ratelimit-limit-requests": String(RPM.limit), "x-ratelimit-remaining-requests": "4000" };
    // The first response's limits configure the limiter anew, which gives credit back: learn them first.
    limiter.sync(headers);
    await oneAfterAnother(limiter, WARM + 1);
    limiter.sync({ ...headers, "x-ratelimit-remaining-requests": "3000" });
    await time.timers.tickAsync(0);
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBe(3_000 - CREDIT_REQUESTS);
    await limiter.close();
    expect(store.levelOf(layoutOf(RPM), "rpm")).toBe(3_000);
  });

  it("a 429's pause gives the credit back first, and admits nothing from it meanwhile", async () => {
    const store = new RecordingStore();
    const limiter = limiterOn(store, { rpm: RPM.limit, tpm: TPM.limit, provider: "openai" });
    await oneAfterAnother(limiter, WARM + 1, 10);
    const body = { error: { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached." } };
    limiter.sync({ "retry-after-ms": "1000" }, { status: 429, body });
    await time.timers.tickAsync(0);
    expect(store.levelOf(layoutOf(RPM, TPM), "rpm")).toBe(RPM.capacity - (WARM + 1));
    let admittedAt: number | undefined;
    void limiter.acquire(10).then((r) => {
      admittedAt = performance.now();
      r.release();
    });
    await time.timers.tickAsync(2_000);
    expect(admittedAt).toBe(1_000);
    await limiter.close();
  });

  it("gives back at once a slice the store could only book for later, and the request still goes", async () => {
    const store = new RecordingStore();
    const options = { tpm: TPM.limit, arrivalDelayMs: 0 };
    const [a, b] = [limiterOn(store, options), limiterOn(store, options)];
    await oneAfterAnother(a!, WARM + 1, 100); // 100 each, the last with 1,000 of credit
    // Another process takes all but 150: a's view of the store is stale.
    (await b!.acquire(TPM.capacity - (WARM + 1) * 100 - 1_000 - 150)).release();
    await oneAfterAnother(a!, 10, 100); // the credit
    await oneAfterAnother(a!, 1, 100); // fits; its slice does not
    expect(store.bookings.map((x) => x.requests)).toEqual([...Array<number>(WARM).fill(1), 2, 1, 2]);
    expect(store.levelOf(layoutOf(TPM), "tpm")).toBe(50);
    // Nothing is booked ahead now: the next request books alone, and waits for its own refill only.
    let admittedAt: number | undefined;
    void a!.acquire(100).then((r) => {
      admittedAt = performance.now();
      r.release();
    });
    await time.timers.tickAsync(1_000);
    expect(store.bookings.at(-1)!.requests).toBe(1);
    // 50 tokens' refill is 46.875 ms, on a whole-ms timer.
    expect(admittedAt).toBe(Math.ceil((50 * 60_000) / TPM.limit));
    await Promise.all([a!.close(), b!.close()]);
  });
});
