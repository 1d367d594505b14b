import { LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Lowers the layout's one dimension to at most `remaining` less what was
 * booked on it after `mark` (`''`: no mark), floored at zero; never raises it.
 * ARGV after the layout: remaining, mark.
 */
export const lower: Script = {
  source: `${PRELUDE}${LAYOUT}
local d = dimensions()[1]
local remaining, mark = tonumber(ARGV[rest]), tonumber(ARGV[rest + 1])
-- A mark above the total means the state was lost since: nothing known was booked after it.
if mark then remaining = remaining - math.max(0, d.total - mark) end
d.level = math.min(d.level, math.max(0, remaining))
save({ d })
keep(KEYS[1], ttl)
`,
  sha1: "4013316247fce4c928a6b4b48becfbecd7a15b57",
};
