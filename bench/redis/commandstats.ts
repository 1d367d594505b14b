import type { Redis } from "ioredis";

/** Zeroes the per-command counters (`CONFIG RESETSTAT`) of a server, or of each of a Cluster's primaries. */
export async function resetCommandStats(redis: Redis | readonly Redis[]): Promise<void> {
  await Promise.all([redis].flat().map((server) => server.config("RESETSTAT")));
}

/** Commands the server (or the primaries, summed) ran since the last reset, the benchmark's own `INFO` excluded. */
export async function commandsRun(redis: Redis | readonly Redis[]): Promise<number> {
  let calls = 0;
  for (const server of [redis].flat()) {
    const info = await server.info("commandstats");
    for (const match of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
      if (match[1] !== "info" && match[1] !== "config") calls += Number(match[2]);
    }
  }
  return calls;
}
