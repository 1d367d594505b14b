/**
 * Calendar quotas against a model written here: never over a quota at admission (what the model says is used
 * plus held, with the call, is within every limit the call draws on), conservation in money (the limiter's used
 * and reserved are the model's, to the nano-dollar), tenants isolated (each tenant's counts are its own calls'),
 * and periods turning at the instants the zone's wall clock says, across both daylight-saving changes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Limiter, QuotaExceededError, WaitTimeoutError, type QuotaReport, type Reservation } from "../../src/index.js";
import { flush, installFakeTime } from "../fake-time.js";
import { numRuns } from "./runs.js";

const TENANTS = ["a", "b", undefined] as const;

/** The model's counters: nano-dollars and requests per scope ("" for the limiter's own). */
interface Count {
  used: number;
  reserved: number;
}

const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("admit" as const),
      input: fc.integer({ min: 0, max: 3_000 }),
      output: fc.integer({ min: 0, max: 3_000 }),
      tenant: fc.constantFrom(...TENANTS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("settle" as const),
      pick: fc.nat(),
      input: fc.integer({ min: 0, max: 6_000 }),
      output: fc.integer({ min: 0, max: 6_000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("refund" as const), pick: fc.nat() }) },
);

const scenario = fc.record({
  /** Prices in thousandths of a dollar per million tokens: whole nano-dollars a token. */
  inputMilli: fc.integer({ min: 0, max: 20_000 }),
  outputMilli: fc.integer({ min: 0, max: 40_000 }),
  ownUsd: fc.integer({ min: 1, max: 400 }), // in 1/10,000 of a dollar
  tenantUsd: fc.integer({ min: 1, max: 200 }),
  tenantRequests: fc.integer({ min: 1, max: 6 }),
  steps: fc.array(step, { minLength: 1, maxLength: 40 }),
});

interface Open {
  reservation: Reservation;
  tenant: string | undefined;
  usd: number;
  requests: number;
}

describe("calendar quotas against a model", () => {
  it("never over at admission; money conserved to the nano-dollar; tenants isolated", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ inputMilli, outputMilli, ownUsd, tenantUsd, tenantRequests, steps }) => {
        const time = installFakeTime();
        try {
          const ownLimit = ownUsd * 100_000; // nano-dollars
          const tenantLimit = tenantUsd * 100_000;
          const limiter = new Limiter({
            rpm: 1e9,
            initial: "full",
            arrivalDelayMs: 0,
            prices: { input: inputMilli / 1000, output: outputMilli / 1000 },
            quotas: { usd: { day: ownUsd / 10_000 } },
            tenantQuotas: { usd: { day: tenantUsd / 10_000 }, requests: { day: tenantRequests } },
          });
          const usd = new Map<string, Count>([["", { used: 0, reserved: 0 }]]);
          const requests = new Map<string, Count>();
          const countOf = (map: Map<string, Count>, key: string): Count => {
            let count = map.get(key);
            if (!count) map.set(key, (count = { used: 0, reserved: 0 }));
            return count;
          };
          const open: Open[] = [];
          const price = (input: number, output: number): number => input * inputMilli + output * outputMilli;
          for (const s of steps) {
            if (s.kind === "admit") {
              const cost = price(s.input, s.output);
              // What the call draws on: the limiter's money, and its tenant's money and requests.
              const draws: [Count, number, number][] = [[usd.get("")!, cost, ownLimit]];
              if (s.tenant !== undefined) {
                draws.push([countOf(usd, s.tenant), cost, tenantLimit]);
                draws.push([countOf(requests, s.tenant), 1, tenantRequests]);
              }
              const active = draws.filter(([, c]) => c > 0);
              const refused = active.some(([count, c, limit]) => count.used + c > limit);
              const waits = !refused && active.some(([count, c, limit]) => count.used + count.reserved + c > limit);
              let outcome: Reservation | unknown;
              limiter.acquire({ input: s.input, output: s.output }, { tenant: s.tenant, maxWaitMs: 0 }).then(
                (r) => (outcome = r),
                (e: unknown) => (outcome = e),
              );
              await flush(time.timers);
              if (refused) {
                expect(outcome).toBeInstanceOf(QuotaExceededError);
              } else if (waits) {
                expect(outcome).toBeInstanceOf(WaitTimeoutError);
              } else {
                expect(outcome).toHaveProperty("settle");
                for (const [count, c, limit] of draws) {
                  count.reserved += c;
                  expect(count.used + count.reserved).toBeLessThanOrEqual(limit); // never over at admission
                }
                open.push({ reservation: outcome as Reservation, tenant: s.tenant, usd: cost, requests: 1 });
              }
              continue;
            }
            if (open.length === 0) continue;
            const i = s.pick % open.length;
            const call = open[i]!;
            const tenantUsdCount = call.tenant === undefined ? undefined : usd.get(call.tenant)!;
            const tenantRequestCount = call.tenant === undefined ? undefined : requests.get(call.tenant)!;
            const moveUsd = (next: number): void => {
              for (const count of [usd.get("")!, tenantUsdCount]) if (count) count.reserved += next - call.usd;
              call.usd = next;
            };
            if (s.kind === "settle") {
              call.reservation.settle({ input: s.input, output: s.output });
              moveUsd(price(s.input, s.output));
            } else if (s.kind === "refund") {
              call.reservation.refund();
              moveUsd(0);
              if (tenantRequestCount) tenantRequestCount.reserved -= call.requests;
              call.requests = 0;
            } else {
              call.reservation.release();
              for (const count of [usd.get("")!, tenantUsdCount]) {
                if (!count) continue;
                count.reserved -= call.usd;
                count.used += call.usd;
              }
              if (tenantRequestCount) {
                tenantRequestCount.reserved -= call.requests;
                tenantRequestCount.used += call.requests;
              }
              open.splice(i, 1);
            }
            await flush(time.timers);
          }
          const expectScope = (report: QuotaReport, money: Count, calls: Count | undefined): void => {
            expect(report.usd?.day?.used).toBe(money.used / 1e9);
            expect(report.usd?.day?.reserved).toBe(money.reserved / 1e9);
            if (calls) expect(report.requests?.day).toMatchObject({ used: calls.used, reserved: calls.reserved });
          };
          expectScope(await limiter.quota(), usd.get("")!, undefined);
          for (const tenant of ["a", "b"]) {
            const money = usd.get(tenant) ?? { used: 0, reserved: 0 };
            expectScope(await limiter.quota(tenant), money, requests.get(tenant) ?? { used: 0, reserved: 0 });
          }
          await limiter.close();
        } finally {
          time.timers.uninstall();
        }
      }),
      { numRuns: numRuns(150) },
    );
  });
});

/** Instants near both of 2026's daylight-saving changes in each zone (and zones without any). */
const ZONES: Record<string, readonly number[]> = {
  "America/New_York": [Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 10, 1, 6)],
  "Europe/Berlin": [Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 9, 25, 1)],
  "Australia/Sydney": [Date.UTC(2026, 3, 4, 16), Date.UTC(2026, 9, 3, 16)],
  "Asia/Kathmandu": [Date.UTC(2026, 5, 1)],
  UTC: [Date.UTC(2026, 0, 1)],
};

const MINUTE = 60_000;

/** The zone's wall clock at `ms`, as numbers, read from `Intl` directly (not through src/core/calendar.ts). */
function wallParts(ms: number, timeZone: string): { y: number; m: number; d: number; h: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
  }).formatToParts(ms);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)!.value);
  return { y: get("year"), m: get("month"), d: get("day"), h: get("hour") };
}

/** A number that grows with the period of `ms` in the zone: hours, days, ISO weeks or months since an origin. */
function periodKey(ms: number, timeZone: string, period: "hour" | "day" | "week" | "month"): number {
  const { y, m, d, h } = wallParts(ms, timeZone);
  const days = Date.UTC(y, m - 1, d) / 86_400_000; // days since 1970-01-01, a Thursday
  switch (period) {
    case "hour":
      return days * 24 + h;
    case "day":
      return days;
    case "week":
      return Math.floor((days + 3) / 7); // weeks from Monday 1969-12-29
    case "month":
      return y * 12 + m;
  }
}

/** The first whole minute after `start` whose period is a later one than `start`'s: the model's boundary. */
function modelBoundary(start: number, timeZone: string, period: "hour" | "day" | "week" | "month"): number {
  const key = periodKey(start, timeZone, period);
  let lo = Math.floor(start / MINUTE); // in the period still
  let hi = lo + 32 * 24 * 60; // past it
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (periodKey(mid * MINUTE, timeZone, period) > key) hi = mid;
    else lo = mid;
  }
  return hi * MINUTE;
}

const turning = fc
  .record({
    zone: fc.constantFrom(...Object.keys(ZONES)),
    pick: fc.nat(),
    offsetMs: fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }),
    period: fc.constantFrom("hour" as const, "day" as const, "week" as const, "month" as const),
  })
  .map(({ zone, pick, offsetMs, period }) => {
    const near = ZONES[zone]!;
    return { zone, period, start: near[pick % near.length]! + offsetMs };
  });

describe("periods turn where the zone's wall clock says", () => {
  it("a spent period refuses until the model's boundary, and admits at it", async () => {
    await fc.assert(
      fc.asyncProperty(turning, async ({ zone, period, start }) => {
        const time = installFakeTime({ wallStartMs: start });
        try {
          const limiter = new Limiter({
            rpm: 1e9,
            initial: "full",
            arrivalDelayMs: 0,
            timeZone: zone,
            quotas: { requests: { [period]: 1 } },
          });
          const boundary = modelBoundary(start, zone, period);
          (await limiter.acquire(0)).release();
          expect((await limiter.quota()).requests?.[period]?.resetsAt).toBe(boundary);
          await time.at(boundary - start - 1);
          await expect(limiter.acquire(0)).rejects.toThrow(QuotaExceededError);
          await time.at(boundary - start);
          (await limiter.acquire(0)).release();
          expect((await limiter.quota()).requests?.[period]?.resetsAt).toBe(modelBoundary(boundary, zone, period));
          await limiter.close();
        } finally {
          time.timers.uninstall();
        }
      }),
      { numRuns: numRuns(60) },
    );
  });
});
