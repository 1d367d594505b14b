/**
 * Commands a process sends in order must take effect in order, also when the
 * server's script cache is empty (a fresh or restarted server, a failover, a
 * SCRIPT FLUSH): header sync lowers a level and the next booking must see it.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { RedisStore } from "../../src/redis/index.js";
import { ADAPTERS } from "../redis/helpers.js";
import { dim, layout } from "../redis/layouts.js";
import { redisServerAvailable, startRedisServer } from "../../examples/shared/redis-server.js";
import { bookOne } from "../redis/book-one.js";

const tokens = layout([dim("tpm", 60_000)]);

describe.skipIf(!redisServerAvailable())("a server whose script cache is empty", () => {
  it("applies a lowering before the booking sent after it", async () => {
    const server = await startRedisServer();
    const connection = await ADAPTERS.ioredis(server.url);
    onTestFinished(async () => {
      await connection.close();
      await server.stop();
    });
    const store = new RedisStore({ client: connection.client, key: "ordered" });
    await bookOne(store, tokens, [0]); // loads the booking script, and only it
    // As SharedAdmission does after a response: write through, then book without waiting.
    const lowered = store.lower(tokens, 0, 0, undefined);
    const booking = await bookOne(store, tokens, [30_000]);
    await lowered;
    expect(booking.levels[0]).toBeLessThan(0);
    expect(booking.waitMs).toBeGreaterThan(0);
  });
});
