import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { scripts } from "../../src/redis/scripts/index.js";
import { ADAPTER_NAMES, describeRedis, rawRedis, storeFactory } from "./helpers.js";
import { dim, layout } from "./layouts.js";
import { bookOne } from "./book-one.js";

const entries = Object.entries(scripts);

it.each(entries)("%s: the pinned SHA1 is the SHA1 of its source", (_, script) => {
  expect(script.sha1).toBe(createHash("sha1").update(script.source).digest("hex"));
});

describeRedis("scripts on a real server", () => {
  const raw = rawRedis();

  it.each(entries)("%s: the pinned SHA1 is what SCRIPT LOAD answers", async (_, script) => {
    expect(await raw.script("LOAD", script.source)).toBe(script.sha1);
  });

  describe.each(ADAPTER_NAMES)("NOSCRIPT with %s", (adapter) => {
    const store = storeFactory(adapter);

    it("falls back to EVAL after SCRIPT FLUSH, which loads the script again", async () => {
      const s = await store();
      const shape = layout([dim("rpm", 10)]);
      await bookOne(s, shape, [1]);
      await raw.script("FLUSH");
      expect(await raw.script("EXISTS", scripts.book.sha1)).toEqual([0]);
      const booking = await bookOne(s, shape, [1]);
      expect(booking).toMatchObject({ booked: true, waitMs: 0, marks: [2] });
      expect(await raw.script("EXISTS", scripts.book.sha1)).toEqual([1]);
    });
  });
});
