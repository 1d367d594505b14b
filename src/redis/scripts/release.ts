import type { Script } from "./script.js";

/** Gives lease ARGV[1] back. */
export const release: Script = {
  source: `redis.call('ZREM', KEYS[2], ARGV[1])
`,
  sha1: "1a80366eb7d05e6a5fa7370774be390f7a71fd59",
};
