import { LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Adds one delta per dimension (ARGV after the layout), capped at capacity
 * less the draws booked for later and pending (see {@link LAYOUT}); then,
 * optionally, per dimension what of the deltas gives back such draws, which
 * are then pending no more.
 * Each level is refilled to now first: a refund on a stale timestamp over-grants.
 */
export const adjust: Script = {
  source: `${PRELUDE}${LAYOUT}
local changed = {}
for i = 1, count do
  local d, delta, back = dims[i], tonumber(ARGV[rest + i - 1]), ARGV[rest + count + i - 1]
  back = back and tonumber(back) or 0
  if back > 0 and d.w > 0 then unbooked(d, back) end
  if delta ~= 0 or d.moved then
    -- save() keeps it under capacity less the draws still unseen.
    d.level = d.level + delta
    changed[#changed + 1] = d
  end
end
save(changed, #changed)
`,
  sha1: "280f3e170a4338135a116332ea29d13bfb1a94ea",
};
