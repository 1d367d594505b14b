import { PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * No admission with a positive cost on the named dimensions until `ms` from
 * now; an earlier pause is never shortened. ARGV: ms, then dimension names.
 */
export const pause: Script = {
  source: `${PRELUDE}
local ms = tonumber(ARGV[1])
for i = 2, #ARGV do
  local field = ARGV[i] .. ':p'
  local current = tonumber(redis.call('HGET', KEYS[1], field)) or 0
  if now + ms > current then redis.call('HSET', KEYS[1], field, now + ms) end
end
keep(KEYS[1], ms)
`,
  sha1: "ccb62fdb6bb4ada4623951493e7d9c3b1b151dca",
};
