import type { Script } from "./script.js";

/** Removes process ARGV[1] from the demand hash (see `DEMAND`): it wants no more. */
export const leave: Script = {
  source: `
redis.call('HDEL', KEYS[3], ARGV[1])
`,
  sha1: "d7c0cbe738640273dde649047567d242804a8a8b",
};
