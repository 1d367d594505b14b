import { HEARD } from "./demand.js";
import { BOOKED_AFTER, LAYOUT, PRELUDE, WAIT_FOR } from "./lua.js";
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
  source: `${PRELUDE}${LAYOUT}${BOOKED_AFTER}${WAIT_FOR}
local me = ARGV[rest]
${HEARD}
local wait, binding = 0, ''
for i = 1, count do
  local d, mark = dims[i], tonumber(ARGV[rest + i])
  if mark then
    local w = waitFor(d, -(d.level + bookedAfter(d, mark)), 1e-9 * math.max(1, math.abs(mark)), true)
    if w > wait then wait, binding = w, ARGV[d.a] end
  end
end
heard(wait)
return { num(wait), binding }
`,
  sha1: "961af03a27dcd72cfe16623ed7ca711005f7fa2f",
};
