import { MAX_TIMEOUT_MS } from "../../core/clock.js";

/**
 * Lua shared by the scripts, pasted in front of each one's body. Every script
 * gets `KEYS[1]` (the bucket hash) and `KEYS[2]` (the lease set): both carry
 * the store's hash tag, so Redis Cluster runs them on one node.
 *
 * The hash holds, per dimension `<name>`, the fields `<name>:l` (its level),
 * `<name>:t` (when that level was last refilled, ms on Redis' clock),
 * `<name>:a` (the total ever booked on it), `<name>:p` (paused until, ms on
 * Redis' clock), and two slots of draws booked for later that the provider may
 * not have seen yet: `<name>:w` and `<name>:W` (amounts), `<name>:u` and
 * `<name>:U` (until when each may be unseen, ms on Redis' clock: due, plus the
 * arrival delay); and, for the whole key, `v` (the layout version,
 * {@link LAYOUT_VERSION}) and `x` (a time, ms on Redis' clock, before which the
 * hash does not expire). llm-limiter 0.1.0 wrote the same per-dimension fields
 * without `v` and `x`: its scripts ignore both, and these read its hash as
 * layout 1.
 *
 * Numbers are most of what the scripts cost Redis: Lua parses each argument
 * and field it reads as a number with `strtod`, and each number written is
 * formatted. So the scripts parse a number only when they use it, format the
 * clock once for every dimension, write whole numbers with `%d` and hand them
 * back as integers.
 *
 * Whatever the hash holds is read through one guard, `finite` (or `stored`,
 * for a field of `state`): Lua's `tonumber` takes `"nan"`, `"inf"` and
 * `"1e999"`, and a field holding text reads as missing, which would start a
 * bucket afresh, full. A field that holds anything else than a finite number
 * (within {@link LIMIT}) is corrupt: the script that finds it resets what it
 * spoils (its bucket to empty, refilling from now), writes that, and returns
 * a `CORRUPT` error reply instead of doing its job (see {@link LAYOUT}).
 */

/**
 * The version of the layout above. Scripts refuse a hash of another version
 * before they write anything: a change that only adds fields older scripts may
 * ignore keeps the number; one that older scripts would misread takes the next.
 */
export const LAYOUT_VERSION = 1;

/**
 * The bound of a number the scripts read or write: a stored number at or past
 * it is corrupt. Redis' own integers stop there, and no time (ms) or amount a
 * script keeps comes near it, so that adding a few never overflows a double.
 */
const LIMIT = "9223372036854775808";

/**
 * The longest TTL a script gives a key (2^40 ms, 35 years): a PEXPIRE of a
 * number that is not a whole one Redis takes would fail after the write before
 * it.
 */
const LONGEST_MS = "1099511627776";

/**
 * `now` (Redis' own clock in ms, fractional; never a caller's), `str(x)`,
 * `num(x)`, `finite(s)` (a stored number, or `nil` when `s` is not a finite
 * one) and `lasting(ms)` (a TTL PEXPIRE takes).
 */
export const PRELUDE = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local format = string.format

-- A stored number, or nil when s (a string, or false for a field that is missing) is not a finite one.
local function finite(s)
  local x = tonumber(s)
  if x and x > -${LIMIT} and x < ${LIMIT} then return x end
end

-- A TTL for PEXPIRE: whole, at most LONGEST_MS (NaN too).
local function lasting(ms)
  if ms < ${LONGEST_MS} then return math.ceil(ms) end
  return ${LONGEST_MS}
end

-- A number as a string that reads back as the same double (Redis would format a Lua number given to a command
-- itself, with '%.17g'); '%d', for a whole number, costs a fraction of that.
local function str(x)
  if x % 1 == 0 and x > -9007199254740992 and x < 9007199254740992 then return format('%d', x) end
  -- Never 'inf' or 'nan' (a sum that overflowed): a number past the bound, which the next script reads as corrupt.
  if not (x > -${LIMIT} and x < ${LIMIT}) then return x < 0 and '-${LIMIT}' or '${LIMIT}' end
  return format('%.17g', x)
end

-- A number for a reply: a whole one as it is (Redis replies with the integer), any other as a string (Redis
-- would truncate it).
local function num(x)
  if x % 1 == 0 and x > -9007199254740992 and x < 9007199254740992 then return x end
  return format('%.17g', x)
end
`;

/**
 * Refuses (returns an error reply from the script) when `version`, a Lua
 * expression, is another layout's. One that is not a whole number is no
 * layout's: corrupt (see {@link read}).
 */
const refuse = (version: string): string => `
if ${version} and ${version} ~= '${LAYOUT_VERSION}' and string.find(${version}, '^%d+$') then
  return redis.error_reply('LAYOUT ' .. KEYS[1] .. ' holds the store layout ' .. ${version} ..
    ', which this version of llm-limiter does not know (it knows ${LAYOUT_VERSION}); nothing was changed')
end
`;

/** For the scripts that touch the lease set only: refuses a key whose hash has another layout version. */
export const CHECK = `
local version = redis.call('HGET', KEYS[1], 'v')
${refuse("version")}`;

/**
 * `read(fields)`, pasted at the top level: one HMGET of the fields named by
 * the Lua table `fields` into `state`; `fields[1]` and `fields[2]` must be `v`
 * and `x`. Refuses another layout version. `stored(i)` is `state[i]` as a
 * number: `nil` when missing, or when corrupt, which it notes in `bad` (the
 * first corrupt field's index) and `spoiled` (cleared by the reader between
 * dimensions); `v` and `x` are checked at once. `corrupt(field, value)` is the
 * error reply to return once the script has repaired what a corrupt field
 * spoiled (by default the first). `lifetime(values, k, ms)` appends
 * to the HSET arguments `values` (the first `k` of them used) what keeps the
 * layout's version and the hash's expiry when the hash must live `ms` more, and
 * returns how many are used then and the PEXPIRE to send after that HSET, if
 * one is needed.
 */
export const read = (fields: string): string => `
local state = redis.call('HMGET', KEYS[1], unpack(${fields}))
${refuse("state[1]")}
local bad, spoiled = nil, false
-- finite(state[i]), inlined: the layout reads eight fields a dimension through it.
local function stored(i)
  local s = state[i]
  if not s then return nil end
  local x = tonumber(s)
  if x and x > -${LIMIT} and x < ${LIMIT} then return x end
  bad, spoiled = bad or i, true
end
if state[1] and state[1] ~= '${LAYOUT_VERSION}' then bad = 1 end
local keptUntil = stored(2) or 0

local function corrupt(field, value)
  field, value = field or ${fields}[bad], value or state[bad]
  return redis.error_reply(format('CORRUPT %s field %s held %q, which is not a finite number: repaired, the bucket ' ..
    'it spoiled reset to empty (see "A corrupted value" in docs/redis.md)', KEYS[1], field, string.sub(value, 1, 40)))
end
-- The hash never expires before field x says, so PTTL and PEXPIRE run only when it must live longer; then it is
-- made to live an eighth more, so that a steady stream of calls seldom extends it. A longer TTL is kept (set by
-- a script that does not keep x).
local function lifetime(values, k, ms)
  if state[1] ~= '${LAYOUT_VERSION}' then
    values[k + 1], values[k + 2] = 'v', '${LAYOUT_VERSION}'
    k = k + 2
  end
  if now + ms <= keptUntil then return k, nil end
  -- Whole and bounded: a PEXPIRE Redis refuses would fail after the HSET it follows.
  ms = lasting(ms * 9 / 8)
  local left, grow = redis.call('PTTL', KEYS[1]), nil
  if left < ms then left, grow = ms, ms end
  -- A millisecond early (PEXPIRE counts from when the script started, a little before TIME), and whole: written
  -- with '%d' and read back faster.
  values[k + 1], values[k + 2] = 'x', str(math.floor(now + left - 1))
  return k + 2, grow
end
`;

/**
 * `dims`: every dimension of the layout in ARGV (fraction, count, then name,
 * limit, windowMs, capacity per dimension), refilled to now, read in one
 * HMGET; `rest` is the index of the first ARGV after the layout. `save(ds, n)`
 * writes the first `n` of `ds` back in one HSET and keeps the hash until their
 * buckets are full again.
 *
 * A dimension with a corrupt field (see {@link read}; a refill time further
 * ahead than {@link LONGEST_MS} too), or every one when `v` or `x` is, is set
 * to empty (`empty(d)`: level 0 from now, nothing booked for later; a sound
 * pause and total kept), and the script returns `repaired()` at once: those
 * written, and the `CORRUPT` error reply. A script that finds a corrupt field
 * of its own after the layout does the same with `repaired(field, value)`.
 */
export const LAYOUT = `
local count = tonumber(ARGV[2])
local rest = 3 + count * 4

-- v, x, then each dimension's eight fields: dimension i's are fields[f] to fields[f + 7], and state[f] to
-- state[f + 7], for f = 8i - 5; its name and limits are ARGV[a] to ARGV[a + 3], for a = 4i - 1.
local fields = { 'v', 'x' }
for i = 1, count do
  local name, f = ARGV[i * 4 - 1], i * 8 - 5
  fields[f], fields[f + 1], fields[f + 2], fields[f + 3] = name .. ':l', name .. ':t', name .. ':a', name .. ':p'
  fields[f + 4], fields[f + 5], fields[f + 6], fields[f + 7] = name .. ':w', name .. ':u', name .. ':W', name .. ':U'
end
${read("fields")}

-- Draws booked for later that the provider has not seen keep its bucket that much fuller than the level: until
-- they may have arrived, the level stops at capacity less them, as the provider's stops at capacity. Each dimension
-- keeps them in two slots (w until u, W until U), each at most until the latest of its draws may arrive.

-- Refills d to time 'to', up to capacity less what it has unseen. Multiply first so whole numbers stay exact; a
-- clock that steps back refills nothing.
local function refillTo(d, to)
  if to > d.at then
    local level, cap = d.level + (to - d.at) * d.limit / d.window, d.capacity - d.w - d.W
    d.level, d.at = level < cap and level or cap, to
  end
end

-- Refills d to now, each slot ending in turn; the slot left is kept first.
local function catchUp(d)
  if d.W > 0 and d.U <= now and (d.w == 0 or d.U < d.u) then refillTo(d, d.U) d.W, d.U = 0, 0 end
  if d.w > 0 and d.u <= now then refillTo(d, d.u) d.w, d.u = 0, 0 end
  if d.W > 0 and d.U <= now then refillTo(d, d.U) d.W, d.U = 0, 0 end
  if d.w == 0 and d.W > 0 then d.w, d.u, d.W, d.U = d.W, d.U, 0, 0 end
  refillTo(d, now)
end

-- The conservative side of what a corrupt field may have held: nothing to admit until refill brings it.
local function empty(d)
  d.level, d.at, d.w, d.u, d.W, d.U, d.moved, d.reset = 0, now, 0, 0, 0, 0, true, true
end

local dims, whole = {}, bad ~= nil
for i = 1, count do
  local f, a = i * 8 - 5, i * 4 - 1
  local capacity = tonumber(ARGV[a + 3])
  spoiled = false
  local level, at = stored(f), stored(f + 1)
  -- A refill held back for longer than any key lives would hold it back for good.
  if at and at > now + ${LONGEST_MS} then at, bad, spoiled = nil, bad or f + 1, true end
  if level == nil or at == nil then level, at = capacity * tonumber(ARGV[1]), now end
  local w, W = stored(f + 4), stored(f + 6)
  local d = { f = f, a = a, level = level, at = at, total = stored(f + 2) or 0, paused = stored(f + 3) or 0,
    w = w or 0, u = w and stored(f + 5) or 0, W = W or 0, U = W and stored(f + 7) or 0, moved = false,
    limit = tonumber(ARGV[a + 1]), window = tonumber(ARGV[a + 2]), capacity = capacity }
  if spoiled or whole then empty(d) else catchUp(d) end
  if d.level > capacity then d.level = capacity end
  dims[i] = d
end

-- A draw of 'cost' booked for later, unseen until 'till': a free slot takes it, else the one that ends later.
local function unseen(d, cost, till)
  if d.w == 0 then d.w, d.u = cost, till
  elseif d.W == 0 then d.W, d.U = cost, till
  elseif d.u > d.U then d.w, d.u = d.w + cost, math.max(d.u, till)
  else d.W, d.U = d.W + cost, math.max(d.U, till) end
  d.moved = true
end

-- Draws booked for later given back: the provider will not see them. Taken from the slot that ends first (a slot
-- may then end holding less than its own draws, which are seen by then; never more).
local function unbooked(d, amount)
  if d.W > 0 and d.U < d.u then
    local take = math.min(d.W, amount)
    d.W, amount = d.W - take, amount - take
  end
  local take = math.min(d.w, amount)
  d.w, d.W = d.w - take, math.max(0, d.W - (amount - take))
  if d.w == 0 and d.W > 0 then d.w, d.u, d.W, d.U = d.W, d.U, 0, 0 end
  d.moved = true
end

-- Keeps the state until the bucket is full again (pending bookings included) plus a window,
-- and past any pause: expiring earlier would forget bookings and over-admit.
local function save(ds, n)
  if n == 0 then return end
  -- Made at its full size for two dimensions and v and x: Lua grows a table filled one entry at a time four times.
  local values = { false, false, false, false, false, false, false, false, false, false, false, false, false, false,
    false, false }
  local ttl, stamp, k = 0, str(now), 0
  for j = 1, n do
    local d = ds[j]
    -- Whatever raised it, a level stays under what the provider's bucket can hold with the draws it has not seen.
    if d.level > d.capacity - d.w - d.W then d.level = d.capacity - d.w - d.W end
    values[k + 1], values[k + 2], values[k + 3], values[k + 4], values[k + 5], values[k + 6] =
      fields[d.f], str(d.level), fields[d.f + 1], d.at == now and stamp or str(d.at), fields[d.f + 2], str(d.total)
    k = k + 6
    if d.moved then
      values[k + 1], values[k + 2], values[k + 3], values[k + 4] = fields[d.f + 4], str(d.w), fields[d.f + 5], str(d.u)
      values[k + 5], values[k + 6], values[k + 7], values[k + 8] = fields[d.f + 6], str(d.W), fields[d.f + 7], str(d.U)
      k = k + 8
    end
    local full = (d.capacity - d.level) * d.window / d.limit + d.window
    -- Refill held back (draws on their way, or booked for later) starts, or ends, later.
    if d.at > now then full = full + d.at - now end
    if d.w > 0 then full = full + math.max(d.u, d.U) - now end
    if full > ttl then ttl = full end
    if d.paused - now > ttl then ttl = d.paused - now end
  end
  local k, grow = lifetime(values, k, ttl)
  redis.call('HSET', KEYS[1], unpack(values, 1, k))
  if grow then redis.call('PEXPIRE', KEYS[1], grow) end
end

local function repaired(field, value)
  local pauses = {}
  for i = 1, count do
    local d = dims[i]
    if d.reset then pauses[#pauses + 1], pauses[#pauses + 2] = fields[d.f + 3], str(d.paused) end
  end
  if #pauses > 0 then redis.call('HSET', KEYS[1], unpack(pauses)) end
  save(dims, count)
  return corrupt(field, value)
end
if bad then return repaired() end
`;

/** `keep(key, ms)`, for the lease set, which has no field to keep its expiry in. */
export const KEEP = `
-- Sets a key's TTL to at least ms, never shortening one another caller needed longer.
local function keep(key, ms)
  ms = math.ceil(ms)
  if ms > 0 and redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * `slot(concurrency, leaseMs, id)`: frees the slots of holders that stopped
 * renewing (once per script), then takes one as lease `id`. Returns true, or
 * false and the ms until the earliest lease expires. When every slot is held,
 * it also frees those whose lease ends later than any store's `leaseMs`
 * ({@link MAX_TIMEOUT_MS}) allows: a score of `inf` would hold its slot for good.
 */
export const SLOTS = `${KEEP}
local held
local function slot(concurrency, leaseMs, id)
  if not held then
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
    held = redis.call('ZCARD', KEYS[2])
  end
  if held >= concurrency then
    held = held - redis.call('ZREMRANGEBYSCORE', KEYS[2], '(' .. str(now + ${MAX_TIMEOUT_MS}), '+inf')
  end
  if held >= concurrency then
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return false, math.min((finite(first[2]) or now + leaseMs) - now, leaseMs)
  end
  redis.call('ZADD', KEYS[2], now + leaseMs, id)
  held = held + 1
  keep(KEYS[2], leaseMs)
  return true, 0
end
`;

/**
 * `bookedAfter(d, mark)`: what was booked on dimension `d` after `mark` (a
 * {@link Booking.marks} value), for the scripts that take a mark.
 */
export const BOOKED_AFTER = `
-- A mark above the total means the state was lost since: nothing known was booked after it.
local function bookedAfter(d, mark) return math.max(0, d.total - mark) end
`;

/**
 * `waitFor(d, missing, slack, paused)`: the ms until dimension `d` has refilled
 * `missing` more (nothing when it lacks no more than `slack`), after the refill
 * held back for draws on their way, and, when `paused` counts, past its pause.
 */
export const WAIT_FOR = `
local function waitFor(d, missing, slack, paused)
  local w = 0
  if missing > slack then
    w = missing * d.window / d.limit
    -- Refill held back until the draws on their way have arrived.
    if d.at > now then w = w + d.at - now end
  end
  if paused and d.paused - now > w then w = d.paused - now end
  return w
end
`;
