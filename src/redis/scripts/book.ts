import { LAYOUT, PRELUDE, SLOTS } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Refills every dimension, then takes each request's costs from all of them
 * at once, in order: admitted now (with a lease when concurrency is limited)
 * while the buckets have room; the first request that lacks room is booked for
 * later and ends the batch; one that finds room but no concurrency slot takes
 * nothing and ends it too.
 * ARGV after the layout: the number of requests m, m × count costs (request
 * by request), concurrency ('' for none), leaseMs, lease id prefix (request r's
 * lease is `prefix:r`). Reply: admitted, booked, waitMs, binding dimension,
 * then per dimension the total before the batch (the client adds each
 * request's costs for its marks: the same doubles in the same order) and the
 * level after it.
 */
export const book: Script = {
  source: `${PRELUDE}${LAYOUT}${SLOTS}
local m = tonumber(ARGV[rest])
local after = rest + 1 + m * count
local concurrency = tonumber(ARGV[after])
local leaseMs = tonumber(ARGV[after + 1])
local prefix = ARGV[after + 2]

local dims, before = dimensions(), {}
for i = 1, count do before[i] = dims[i].total end

local admitted, booked, wait, binding = 0, '0', 0, ''
for r = 1, m do
  local costs = rest + 1 + (r - 1) * count
  for i = 1, count do
    local d, cost = dims[i], tonumber(ARGV[costs + i - 1])
    local w = 0
    -- Float slack: refill arithmetic can land a hair under a level that is, exactly, reached.
    if d.level + 1e-9 * math.max(cost, 1) < cost then w = (cost - d.level) * d.window / d.limit end
    if cost > 0 and d.paused - now > w then w = d.paused - now end
    if w > wait then wait, binding = w, d.name end
  end
  if wait == 0 and concurrency then
    local free, retry = slot(concurrency, leaseMs, prefix .. ':' .. r)
    if not free then
      wait, binding = retry, 'concurrency'
      break
    end
  end
  for i = 1, count do
    local d, cost = dims[i], tonumber(ARGV[costs + i - 1])
    d.level, d.total = d.level - cost, d.total + cost
  end
  if wait > 0 then
    booked = '1'
    break
  end
  admitted = r
end

local out = { tostring(admitted), booked, str(wait), binding }
save(dims)
for i = 1, count do
  out[4 + i] = str(before[i])
  out[4 + count + i] = str(dims[i].level)
end
keep(KEYS[1], ttl)
return out
`,
  sha1: "2efef59f7a7830776da534856b1cf53e34933d9c",
};
