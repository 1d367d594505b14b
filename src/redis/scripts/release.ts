import { CHECK } from "./lua.js";
import type { Script } from "./script.js";

/** Gives lease ARGV[1] back. */
export const release: Script = {
  source: `${CHECK}
redis.call('ZREM', KEYS[2], ARGV[1])
`,
  sha1: "9192783ba069b6054e5dd565d43527aaa9e9daa5",
};
