/** On Cloudflare Workers a limiter without a store warns, once per isolate: each isolate would spend the quota. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Limiter as LimiterClass } from "../../src/index.js";
import { InProcessStore } from "../shared/in-process-store.js";

/** A fresh copy of the package, as a new isolate loads it. */
async function freshLimiter(): Promise<typeof LimiterClass> {
  vi.resetModules();
  return (await import("../../src/index.js")).Limiter;
}

describe("on Cloudflare Workers", () => {
  beforeEach(() => vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" }));
  afterEach(() => vi.unstubAllGlobals());

  it("a limiter without a store warns once per isolate, naming the fix", async () => {
    const Limiter = await freshLimiter();
    const warnings: Error[] = [];
    new Limiter({ rpm: 10, onWarning: (w) => warnings.push(w) });
    new Limiter({ rpm: 10, onWarning: (w) => warnings.push(w) });
    expect(warnings.map((w) => w.name)).toEqual(["IsolatedLimiterWarning"]);
    expect(warnings[0]!.message).toMatch(/quota times the number of isolates.*store/);
  });

  it("a limiter over a shared store does not", async () => {
    const Limiter = await freshLimiter();
    const onWarning = vi.fn();
    new Limiter({ rpm: 10, store: new InProcessStore(() => 0), onWarning });
    expect(onWarning).not.toHaveBeenCalled();
  });
});

describe("elsewhere", () => {
  it("no limiter warns of its isolate (Node; a browser's or Deno's userAgent is another string)", async () => {
    vi.stubGlobal("navigator", { userAgent: "Deno/2.9.6" });
    try {
      const Limiter = await freshLimiter();
      const onWarning = vi.fn();
      new Limiter({ rpm: 10, onWarning });
      expect(onWarning).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
