import { LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Adds one delta per dimension (ARGV after the layout), capped at capacity.
 * Each level is refilled to now first: a refund on a stale timestamp over-grants.
 */
export const adjust: Script = {
  source: `${PRELUDE}${LAYOUT}
for i = 1, count do
  local delta = tonumber(ARGV[rest + i - 1])
  if delta ~= 0 then
    local d = dimension(i)
    d.level = math.min(d.level + delta, d.capacity)
    save(d)
  end
end
keep(KEYS[1], ttl)
`,
  sha1: "518fceda0526f5eece7370fe0cc46c4d567e7b3c",
};
