import { describe, expect, it } from "vitest";
import { LimiterGroup } from "../../src/index.js";
import { useFakeTime } from "../fake-time.js";

const time = useFakeTime();

function group(): LimiterGroup {
  return new LimiterGroup({
    models: { a: { tpm: 10_000 }, b: { tpm: 10_000 } },
    shared: { tpm: 20_000 },
    provider: "openai",
    initial: "full",
    arrivalDelayMs: 0,
    clock: time.clock,
  });
}

/** OpenAI's headers for the model's tokens and, optionally, the project's. */
function headers(tokens: number, project?: number): Record<string, string> {
  const own = {
    "x-ratelimit-limit-tokens": "10000",
    "x-ratelimit-remaining-tokens": String(tokens),
    "x-ratelimit-reset-tokens": "6s",
  };
  if (project === undefined) return own;
  return {
    ...own,
    "x-ratelimit-limit-project-tokens": "20000",
    "x-ratelimit-remaining-project-tokens": String(project),
    "x-ratelimit-reset-project-tokens": "3s",
  };
}

describe("LimiterGroup header sync", () => {
  it("lands a member's headers on that member, and project-scoped ones on the shared dimension", async () => {
    const g = group();
    g.for("a").sync(headers(4_000));
    let { members, shared } = g.snapshot();
    expect(members.a!.dimensions.tpm!.available).toBe(4_000);
    expect(members.b!.dimensions.tpm!.available).toBe(10_000);
    expect(shared.tpm!.available).toBe(20_000);

    g.for("a").sync(headers(4_000, 7_000));
    ({ members, shared } = g.snapshot());
    expect(shared.tpm!.available).toBe(7_000);
    expect(members.b!.dimensions["project-tpm"]!.available).toBe(7_000);
    expect(members.b!.dimensions.tpm!.available).toBe(10_000);
    await g.close();
  });

  it("counts every member's admissions after a request when its response syncs the shared dimension", async () => {
    const g = group();
    const first = await g.for("a").acquire(1_000);
    // Admitted after `first`: the provider may not have counted it in first's headers.
    await g.for("b").acquire(2_000);
    // The project had 6,000 left when `first` was counted (others used 13,000): b's 2,000 come off that.
    first.sync(headers(9_000, 6_000));
    const { members, shared } = g.snapshot();
    expect(shared.tpm!.available).toBe(4_000);
    expect(members.a!.dimensions.tpm!.available).toBe(9_000);
    expect(members.b!.dimensions.tpm!.available).toBe(8_000);
    await g.close();
  });

  it("pauses only the member whose response was a 429", async () => {
    const g = group();
    const reservation = await g.for("a").acquire(100);
    reservation.sync({ "retry-after": "10" }, { status: 429 });
    reservation.release();
    expect(g.for("a").tryAcquire(100)).toBeUndefined();
    expect(g.for("b").tryAcquire(100)).toBeDefined();
    await time.at(10_000);
    expect(g.for("a").tryAcquire(100)).toBeDefined();
    await g.close();
  });
});
