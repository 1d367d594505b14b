import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starts a real redis-server on a free port (or uses REDIS_URL) for the Redis tests.
    globalSetup: ["test/redis/redis-server.setup.ts"],
    // global.gc for the heap measurements of test/integration/no-leak.test.ts.
    execArgv: ["--expose-gc"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
