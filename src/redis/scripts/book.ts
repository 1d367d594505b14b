import { LAYOUT, PRELUDE, SLOTS } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Refills every dimension and takes every cost at once: admitted now (with a
 * lease when concurrency is limited), or booked for later when the buckets
 * lack room; takes nothing when only a concurrency slot is missing.
 * ARGV after the layout: one cost per dimension, concurrency ('' for none),
 * leaseMs, lease id. Reply: booked, waitMs, binding dimension, lease, marks, levels.
 */
export const book: Script = {
  source: `${PRELUDE}${LAYOUT}${SLOTS}
local concurrency = tonumber(ARGV[rest + count])
local leaseMs = tonumber(ARGV[rest + count + 1])
local id = ARGV[rest + count + 2]

local dims, wait, binding = {}, 0, ''
for i = 1, count do
  local d = dimension(i)
  local cost = tonumber(ARGV[rest + i - 1])
  local w = 0
  -- Float slack: refill arithmetic can land a hair under a level that is, exactly, reached.
  if d.level + 1e-9 * math.max(cost, 1) < cost then w = (cost - d.level) * d.window / d.limit end
  if cost > 0 and d.paused - now > w then w = d.paused - now end
  if w > wait then wait, binding = w, d.name end
  d.cost = cost
  dims[i] = d
end

local function reply(booked, lease)
  local out = { booked, str(wait), binding, lease }
  for i = 1, count do
    out[4 + i] = str(dims[i].total)
    out[4 + count + i] = str(dims[i].level)
  end
  return out
end

local lease = ''
if wait == 0 and concurrency then
  local free, retry = slot(concurrency, leaseMs, id)
  if not free then
    wait, binding = retry, 'concurrency'
    return reply('0', '')
  end
  lease = id
end

for i = 1, count do
  local d = dims[i]
  d.level, d.total = d.level - d.cost, d.total + d.cost
  save(d)
end
keep(KEYS[1], ttl)
return reply('1', lease)
`,
  sha1: "8fae129669c9a1993330ee19a443a2dc060877d1",
};
