import { CHECK } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Ends the pauses of the named dimensions (`limiter.resume()`, or a later response that showed room): their
 * `:p` fields go, so every process books on them again. ARGV: dimension names.
 */
export const unpause: Script = {
  source: `${CHECK}
local fields = {}
for i = 1, #ARGV do fields[i] = ARGV[i] .. ':p' end
if #fields > 0 then redis.call('HDEL', KEYS[1], unpack(fields)) end
`,
  sha1: "8ec6bb52b0aaba8eaaf8a51243bdd04ccbcb328d",
};
