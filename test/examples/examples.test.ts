/**
 * Runs every `examples/*.ts` as a user would (`tsx examples/x.ts`), against the simulator: no API
 * key in its environment, and the Redis of the global setup for the Redis example. Each must
 * exit 0, which they do only when every call succeeded and the simulator sent no 429.
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
/** Far above any example's few seconds (the Redis one forks three tsx processes): a hang fails. */
const TIMEOUT_MS = 60_000;
const EXAMPLES = readdirSync(`${ROOT}examples`)
  .filter((name) => name.endsWith(".ts"))
  .sort();
/** Examples that need a Redis; the rest need nothing but the simulator. */
const NEEDS_REDIS = new Set(["redis-replicas.ts"]);

/** `""` when no redis-server could be started outside CI (in CI the global setup fails instead). */
const redisUrl = inject("redisUrl");

interface Exit {
  readonly code: number | null;
  readonly output: string;
}

function run(example: string, env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve) => {
    execFile(TSX, [`examples/${example}`], { cwd: ROOT, env, timeout: TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

function environment(example: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  if (NEEDS_REDIS.has(example)) env.REDIS_URL = redisUrl;
  return env;
}

describe("examples/", () => {
  it("holds an example per integration", () => {
    for (const name of [
      "openai-sdk.ts",
      "anthropic-streaming.ts",
      "ai-sdk.ts",
      "langchain.ts",
      "express-priorities.ts",
      "redis-replicas.ts",
      "openai-quickstart.ts",
      "demo.ts",
    ]) {
      expect(EXAMPLES).toContain(name);
    }
  });

  it("has a Redis for the Redis example in CI", () => {
    if (process.env.CI === "true") expect(redisUrl, "redis-server on PATH, or REDIS_URL").not.toBe("");
  });
});

// Concurrently: each waits on timers and sockets more than on the CPU, and none asserts a timing.
describe.concurrent("every example", () => {
  for (const example of EXAMPLES) {
    const skip = NEEDS_REDIS.has(example) && redisUrl === "";
    it.skipIf(skip)(
      `${example} runs against the simulator and exits 0`,
      async () => {
        const { code, output } = await run(example, environment(example));
        expect(code, output).toBe(0);
      },
      TIMEOUT_MS + 5_000,
    );
  }
});
