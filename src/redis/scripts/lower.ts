import { LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Lowers the layout's one dimension to at most `remaining` less what was
 * booked on it after `mark` (`''`: no mark), floored at zero; never raises it.
 * ARGV after the layout: remaining, mark.
 */
export const lower: Script = {
  source: `${PRELUDE}${LAYOUT}
local d = dims[1]
local remaining, mark = tonumber(ARGV[rest]), tonumber(ARGV[rest + 1])
-- A mark above the total means the state was lost since: nothing known was booked after it.
if mark then remaining = remaining - math.max(0, d.total - mark) end
d.level = math.min(d.level, math.max(0, remaining))
save({ d }, 1)
`,
  sha1: "06cafa2b88e54b6ce01f8af099580ba99ce29e08",
};
