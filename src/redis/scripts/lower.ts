import { BOOKED_AFTER, LAYOUT, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Sets the layout's one dimension to a header reading: at most `remaining`,
 * and at most `brought` less what was booked on it after `mark` (`''`: no
 * mark), floored at zero. Without `raise` it never raises the level; with it
 * (header sync) it may, up to the own count (the level as bookings, refills
 * and adjusts alone leave it), unless the level is in debt, which bookings
 * hold. The own count is kept as `<name>:h`, how far below it headers set the
 * level; scripts that ignore the field move both alike, or (lowering) lower
 * the own count too; one that is corrupt resets the bucket as a corrupt
 * layout field does (see {@link LAYOUT}). ARGV after the layout: remaining,
 * brought, mark, raise.
 */
export const lower: Script = {
  source: `${PRELUDE}${LAYOUT}${BOOKED_AFTER}
local d = dims[1]
local remaining, brought, mark = tonumber(ARGV[rest]), tonumber(ARGV[rest + 1]), tonumber(ARGV[rest + 2])
if mark then brought = brought - bookedAfter(d, mark) end
local truth = math.max(0, math.min(remaining, brought))
local below = ARGV[d.a] .. ':h'
local h = redis.call('HGET', KEYS[1], below)
local held = finite(h)
if h and held == nil then
  empty(d)
  redis.call('HSET', KEYS[1], below, '0')
  return repaired(below, h)
end
-- The own count refills as the level does, and stops at capacity too.
local own = d.level + math.max(0, math.min(held or 0, d.capacity - d.level))
local set = math.min(d.level, truth)
if ARGV[rest + 3] == '1' and d.level >= 0 then set = math.min(own, truth) end
d.level = set
save({ d }, 1)
redis.call('HSET', KEYS[1], below, str(own - set))
`,
  sha1: "f8d658822d567645abf32c1b162985f8fd906359",
};
