import { HEARD } from "./demand.js";
import { LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * How long until a booking for later is due, now: on each dimension it costs
 * something, the bookings up to it are covered once the level (refilled to
 * now) plus what was booked after its mark reaches zero; refill held back and
 * pauses count as when booking. Changes nothing but the caller's field in the
 * demand hash ({@link HEARD}). KEYS: the bucket hash, the lease set, the
 * demand hash. ARGV after the layout: the caller's id, then per dimension the
 * booking's mark (empty where it costs nothing). Reply: waitMs (0: due), the
 * binding dimension.
 */
export const due: Script = {
  source: `${PRELUDE}${LAYOUT}
local me = ARGV[rest]
${HEARD}
local wait, binding = 0, ''
for i = 1, count do
  local d, mark = dims[i], tonumber(ARGV[rest + i])
  if mark then
    -- A mark above the total means the state was lost since: nothing known was booked after it.
    local covered = d.level + math.max(0, d.total - mark)
    local w = 0
    if covered < -1e-9 * math.max(1, math.abs(mark)) then
      w = -covered * d.window / d.limit
      if d.at > now then w = w + d.at - now end
    end
    if d.paused - now > w then w = d.paused - now end
    if w > wait then wait, binding = w, ARGV[d.f] end
  end
end
heard(wait)
return { num(wait), binding }
`,
  sha1: "6416e0d63fdd49d7b7b695032a709c84ea3129e4",
};
