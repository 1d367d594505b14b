import { CHECK } from "./lua.js";
import type { Script } from "./script.js";

/** Gives lease ARGV[1] back. */
export const release: Script = {
  source: `${CHECK}
redis.call('ZREM', KEYS[2], ARGV[1])
`,
  sha1: "d828180ad155392f266d11f0b946819a2603b007",
};
