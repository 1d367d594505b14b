import { LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Adds one delta per dimension (ARGV after the layout), capped at capacity.
 * Each level is refilled to now first: a refund on a stale timestamp over-grants.
 */
export const adjust: Script = {
  source: `${PRELUDE}${LAYOUT}
local changed = {}
for i = 1, count do
  local delta = tonumber(ARGV[rest + i - 1])
  if delta ~= 0 then
    dims[i].level = math.min(dims[i].level + delta, dims[i].capacity)
    changed[#changed + 1] = dims[i]
  end
end
save(changed, #changed)
`,
  sha1: "85f0d616eb8a7219532b7673302b91ef3108863c",
};
