/**
 * Starts a throwaway `redis-server` on a free port, for the Redis example when REDIS_URL is not
 * set, and for the Redis tests and benchmarks (which import it from here). Not part of the library.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A `redis-server` child process owned by the caller: the Redis example, the tests and the benchmarks. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

const BINARY = "redis-server";

/** Whether `redis-server` can be run here. */
export function redisServerAvailable(): boolean {
  return spawnSync(BINARY, ["--version"], { stdio: "ignore" }).error === undefined;
}

/** A port nobody listens on right now (redis-server has no `--port 0`). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * Starts a throwaway, persistence-free server (on `port` when given) and waits until it accepts connections.
 * `wrapper` runs it under another program (bench/redis-instructions.ts: `valgrind --tool=callgrind`).
 */
export async function startRedisServer(port?: number, wrapper: readonly string[] = []): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "llm-limiter-redis-"));
  const args = ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
  const [command = BINARY, ...prefix] = wrapper;
  const child = spawn(command, wrapper.length === 0 ? args : [...prefix, BINARY, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${log}`)), 10_000);
      const done = (error?: Error): void => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      child.once("error", done);
      child.once("exit", (code) => done(new Error(`redis-server exited with ${code}:\n${log}`)));
      child.stdout?.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("Ready to accept connections")) done();
      });
      child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
    });
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // Started: stop collecting the log, but keep draining the pipes.
  child.removeAllListeners("exit");
  child.stdout?.removeAllListeners("data").resume();
  child.stderr?.removeAllListeners("data").resume();
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    async stop() {
      child.kill("SIGTERM");
      await exited(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
