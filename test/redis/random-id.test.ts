/** Lease and process ids: `crypto.randomUUID()` where there is one, else a v4 UUID made from random bytes. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { randomId } from "../../src/redis/random-id.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("randomId", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("is crypto.randomUUID() where there is one", () => {
    vi.stubGlobal("crypto", { randomUUID: () => "from-web-crypto" });
    expect(randomId()).toBe("from-web-crypto");
  });

  it("is a v4 UUID from crypto.getRandomValues without randomUUID (a plain-HTTP browser page)", () => {
    const getRandomValues = vi.fn((bytes: Uint8Array) => bytes.fill(0xff));
    vi.stubGlobal("crypto", { getRandomValues });
    expect(randomId()).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
    expect(getRandomValues).toHaveBeenCalledOnce();
  });

  it("is a v4 UUID from Math.random without Web Crypto, and ids differ", () => {
    vi.stubGlobal("crypto", undefined);
    const ids = new Set(Array.from({ length: 100 }, randomId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(UUID_V4);
  });
});
