import { BOOKING_BATCH } from "../../store/shared-store.js";

/**
 * How long past the time it said it would book again a process's demand
 * counts (ms): one that stopped booking (it crashed, or closed with waiters
 * queued) holds the others back this long at most; one slower to come back is
 * counted anew.
 */
const GRACE_MS = 2_000;

/**
 * Lua for the booking script: fairness between the processes that want more
 * (see {@link SharedStore.book}). `KEYS[3]` is a hash with one field per such
 * process, named by the id it sends: `"<served> <back>"`, what it has taken in
 * batches while it wanted more, and when (Redis' clock, ms) it books next.
 *
 * Pasted at the top level after `now` is known, with `me` (the caller's id)
 * defined: reads the hash into `served` (the caller's count; one that joins
 * starts a batch behind the lowest, so that its first batch puts it level),
 * `behind` (the lowest count of the others due to book now, `nil` if none)
 * and `behindBack`; forgets processes gone more than {@link GRACE_MS}.
 * `weight(costs)` is a request's weight in batches ({@link BOOKING_BATCH});
 * `ahead(w, first)` whether taking one of weight `w` would put the caller more
 * than a batch ahead of `behind` (the first of a call goes whenever the caller
 * is not ahead); `fairWait()` the ms to wait when it would. `keepDemand(wait,
 * more)` writes the caller's count back while it still wants more (`wait`: ms
 * until it books again), and removes it once it does not.
 */
export const DEMAND = `
local demand, served, known, behind, behindBack, lowest, latest = redis.call('HGETALL', KEYS[3]), nil, false, nil, 0, nil, now
local gone = {}
for j = 1, #demand, 2 do
  local id = demand[j]
  local c, b = string.match(demand[j + 1], '^(%S+) (%S+)$')
  c, b = tonumber(c), tonumber(b)
  if b + ${GRACE_MS} <= now then
    gone[#gone + 1] = id
  elseif id == me then
    served, known = c, true
  else
    if lowest == nil or c < lowest then lowest = c end
    if b <= now and (behind == nil or c < behind) then behind, behindBack = c, b end
    if b > latest then latest = b end
  end
end
if #gone > 0 then redis.call('HDEL', KEYS[3], unpack(gone)) end
if served == nil then served = lowest and lowest - 1 or 0 end

local function weight(costs, dims, n)
  local w = ${1 / BOOKING_BATCH.requests}
  for i = 1, n do
    local share = costs[i] / (dims[i].capacity * ${BOOKING_BATCH.share})
    if share > w then w = share end
  end
  return w
end

-- Float slack: a batch of weights that add up to one, exactly, lands a hair over it.
local function ahead(w, first)
  if behind == nil or (first and served <= behind) then return false end
  return served + w > behind + 1 + 1e-9
end

-- Soon, as the process behind books within its round trip; less often the longer it is overdue.
local function fairWait()
  return math.min(math.max((now - behindBack) / 4, 1), 50)
end

local function keepDemand(wait, more)
  if not more then
    if known then redis.call('HDEL', KEYS[3], me) end
    return
  end
  local back = now + wait
  redis.call('HSET', KEYS[3], me, str(served) .. ' ' .. str(back))
  if back > latest then latest = back end
  redis.call('PEXPIRE', KEYS[3], math.ceil(latest + ${GRACE_MS} - now))
end
`;
