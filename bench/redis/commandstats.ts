import type { Redis } from "ioredis";

/** Zeroes the server's per-command counters (`CONFIG RESETSTAT`). */
export async function resetCommandStats(redis: Redis): Promise<void> {
  await redis.config("RESETSTAT");
}

/** Commands the server ran since the last reset, the benchmark's own `INFO` excluded. */
export async function commandsRun(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
    if (match[1] !== "info" && match[1] !== "config") calls += Number(match[2]);
  }
  return calls;
}
