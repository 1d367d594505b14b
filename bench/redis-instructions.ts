/**
 * Instructions redis-server runs per one-caller admission, counted by callgrind (valgrind): unlike
 * admissions per second, the count does not move with the neighbours' load, so a change to the
 * scripts can be priced on shared cores. Each row awaits one admission after another on a key of
 * its own (as bench/redis.ts's one-caller rows do), after a warm-up, between `callgrind_control
 * --zero` and `--dump`; the count is the user-space instructions of reading and running the
 * commands (the server's timer and the writing of replies left out), divided by the admissions.
 * Needs valgrind; prints markdown, writes nothing.
 *
 *   npx tsx bench/redis-instructions.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { startRedisServer } from "../examples/shared/redis-server.js";
import { admitter, UNBOUNDED } from "./redis/admitters.js";
import type { Library } from "./redis/jobs.js";
import { markdownTable, whole } from "./table.js";

const WARMUP = 50;
const ADMISSIONS = 300;
const LIBRARIES: readonly Library[] = ["llm-limiter", "llm-limiter-rpm", "rate-limiter-flexible"];

const dir = mkdtempSync(join(tmpdir(), "llm-limiter-callgrind-"));
const server = await startRedisServer(undefined, [
  "valgrind",
  "--tool=callgrind",
  // Only what reading and running a command costs: not the server's timer, nor the writing of replies.
  "--toggle-collect=readQueryFromClient",
  `--callgrind-out-file=${join(dir, "callgrind.out")}`,
]);
const redis = new Redis(server.url);

/** Runs `admit` `ADMISSIONS` times, one after another, counting the server's instructions meanwhile. */
async function instructionsPer(admit: () => Promise<unknown>): Promise<number> {
  const pid = /process_id:(\d+)/.exec(await redis.info("server"))![1]!;
  for (let i = 0; i < WARMUP; i++) await admit();
  execFileSync("callgrind_control", ["--zero", pid], { stdio: "ignore" });
  for (let i = 0; i < ADMISSIONS; i++) await admit();
  execFileSync("callgrind_control", ["--dump", pid], { stdio: "ignore" });
  let total = 0;
  for (const file of readdirSync(dir)) {
    const dump = readFileSync(join(dir, file), "utf8");
    total += Number(/^(?:summary|totals): (\d+)/m.exec(dump)?.[1] ?? 0);
    rmSync(join(dir, file));
  }
  return total / ADMISSIONS;
}

const rows: string[][] = [];
try {
  for (const library of LIBRARIES) {
    const lib = admitter(library, redis, `instructions:${library}`, UNBOUNDED);
    rows.push([library, whole(await instructionsPer(() => lib.admit()))]);
    lib.close();
  }
  // The floor under any script: the bare command and the dispatch of a script call.
  rows.push(["`PING`", whole(await instructionsPer(() => redis.ping()))]);
  const sha = String(await redis.script("LOAD", "return 1"));
  rows.push(["`EVALSHA` of `return 1`, no arguments", whole(await instructionsPer(() => redis.evalsha(sha, 0)))]);
} finally {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(
  `${markdownTable(["one admission of", "instructions in redis-server"], ["left", "right"], rows)}\n`,
);
