/**
 * Lua shared by the scripts, pasted in front of each one's body. Every script
 * gets `KEYS[1]` (the bucket hash) and `KEYS[2]` (the lease set): both carry
 * the store's hash tag, so Redis Cluster runs them on one node.
 */

/** `now` (Redis' own clock in ms, fractional; never a caller's), `str(x)` and `keep(key, ms)`. */
export const PRELUDE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000

-- Replies carry numbers as strings: Redis would truncate a Lua number to an integer.
local function str(x) return string.format('%.17g', x) end

-- Sets a key's TTL to at least ms, never shortening one another caller needed longer.
local function keep(key, ms)
  ms = math.ceil(ms)
  if ms > 0 and redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * `dimensions()`: every dimension of the layout in ARGV (fraction, count, then
 * name, limit, windowMs, capacity per dimension), refilled to now, read in one
 * HMGET. `save(ds)` writes those given back in one HSET; `ttl` then says how
 * long the hash must live.
 */
export const LAYOUT = `
local fraction = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local rest = 3 + count * 4
local ttl = 0

local function dimensions()
  local fields = {}
  for i = 1, count do
    local name, f = ARGV[3 + (i - 1) * 4], (i - 1) * 4
    fields[f + 1], fields[f + 2], fields[f + 3], fields[f + 4] = name .. ':l', name .. ':t', name .. ':a', name .. ':p'
  end
  local s = redis.call('HMGET', KEYS[1], unpack(fields))
  local ds = {}
  for i = 1, count do
    local o, f = 3 + (i - 1) * 4, (i - 1) * 4
    local d = { name = ARGV[o], limit = tonumber(ARGV[o + 1]), window = tonumber(ARGV[o + 2]), capacity = tonumber(ARGV[o + 3]) }
    local level, at = tonumber(s[f + 1]), tonumber(s[f + 2])
    if level == nil or at == nil then level, at = d.capacity * fraction, now end
    -- Multiply first so whole numbers stay exact; a clock that steps back refills nothing.
    if now > at then level, at = level + (now - at) * d.limit / d.window, now end
    d.level, d.at = math.min(level, d.capacity), at
    d.total, d.paused = tonumber(s[f + 3]) or 0, tonumber(s[f + 4]) or 0
    ds[i] = d
  end
  return ds
end

-- Keeps the state until the bucket is full again (pending bookings included) plus a window,
-- and past any pause: expiring earlier would forget bookings and over-admit.
local function save(ds)
  if #ds == 0 then return end
  local values = {}
  for j, d in ipairs(ds) do
    local f = (j - 1) * 6
    values[f + 1], values[f + 2], values[f + 3], values[f + 4], values[f + 5], values[f + 6] =
      d.name .. ':l', d.level, d.name .. ':t', d.at, d.name .. ':a', d.total
    ttl = math.max(ttl, (d.capacity - d.level) * d.window / d.limit + d.window, d.paused - now)
  end
  redis.call('HSET', KEYS[1], unpack(values))
end
`;

/**
 * `slot(concurrency, leaseMs, id)`: frees the slots of holders that stopped
 * renewing (once per script), then takes one as lease `id`. Returns true, or
 * false and the ms until the earliest lease expires.
 */
export const SLOTS = `
local held
local function slot(concurrency, leaseMs, id)
  if not held then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
    held = redis.call('ZCARD', KEYS[2])
  end
  if held >= concurrency then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return false, math.min(tonumber(first[2]) - now, leaseMs)
  end
  redis.call('ZADD', KEYS[2], now + leaseMs, id)
  held = held + 1
  keep(KEYS[2], leaseMs)
  return true, 0
end
`;
