/**
 * Vitest global setup for the Redis store tests: starts a throwaway
 * `redis-server` (or uses `REDIS_URL`) and provides its URL as `redisUrl`.
 * Without redis-server, CI fails here; elsewhere the Redis tests skip.
 */
import type { TestProject } from "vitest/node";
import { redisServerAvailable, startRedisServer } from "../../examples/shared/redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis the tests use; `""`: none (the tests skip). */
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.REDIS_URL;
  if (external) {
    project.provide("redisUrl", external);
    return undefined;
  }
  if (!redisServerAvailable()) {
    const hint = "install redis-server (apt-get install redis-server) or set REDIS_URL";
    if (process.env.CI === "true") throw new Error(`Redis store tests need redis-server on PATH in CI: ${hint}`);
    console.warn(`\n[llm-limiter] redis-server not found: the Redis store tests are SKIPPED (${hint}).\n`);
    project.provide("redisUrl", "");
    return undefined;
  }
  const server = await startRedisServer();
  project.provide("redisUrl", server.url);
  return () => server.stop();
}
