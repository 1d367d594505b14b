import { PRELUDE, read } from "./lua.js";
import type { Script } from "./script.js";

/**
 * No admission with a positive cost on the named dimensions until `ms` from
 * now; an earlier pause is never shortened. ARGV: ms, then dimension names.
 */
export const pause: Script = {
  source: `${PRELUDE}
local ms = tonumber(ARGV[1])
local fields = { 'v', 'x' }
for i = 2, #ARGV do fields[i + 1] = ARGV[i] .. ':p' end
${read("fields")}
local values, untilMs = {}, now + ms
for i = 3, #fields do
  if untilMs > (stored(i) or 0) then values[#values + 1], values[#values + 2] = fields[i], str(untilMs) end
end
local k, grow = lifetime(values, #values, ms)
if k > 0 then redis.call('HSET', KEYS[1], unpack(values, 1, k)) end
if grow then redis.call('PEXPIRE', KEYS[1], grow) end
if bad then return corrupt() end
`,
  sha1: "243e25910fe9f2cb32866d8de6fbd8bf8b09b492",
};
