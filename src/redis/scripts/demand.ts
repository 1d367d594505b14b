import { BOOKING_BATCH } from "../../store/shared-store.js";

/**
 * How long past the time it said it would book again a process's demand
 * counts (ms): one that stopped booking (it crashed, or its waiters left)
 * holds the others back this long at most; one slower to come back joins
 * anew, a batch behind the lowest.
 */
const GRACE_MS = 1_000;

/**
 * Lua for the booking script: fairness between the processes that want more
 * (see {@link SharedStore.book}). `KEYS[3]` is a hash with one field per such
 * process, named by the id it sends: `"<served> <back>"`, what it has taken in
 * batches while it wanted more, and when (Redis' clock, ms) it books next:
 * at once, or when its booking for later is due (as it last heard; refunds
 * bring that sooner, see {@link HEARD}).
 *
 * Pasted at the top level once `now`, `m` (the requests sent), `me` (the
 * caller's id) and `listed` (whether the caller may have a field) are known.
 * `served` is the caller's count: what this call took, on top of what the hash
 * says (one that joins starts a batch behind the lowest, so that its first
 * batch puts it level). `weight(costs, dims, n)` is a request's weight in
 * batches ({@link BOOKING_BATCH}); `ahead(w, first)` whether taking one of
 * weight `w` would put the caller more than a batch past the lowest count of
 * the others due to book by now (the first of a call goes whenever the caller
 * is not ahead): one waiting for its booking to come due holds nobody back
 * until then. `fairWait()` is the ms to wait then. `keepDemand(wait, more)`
 * writes the caller's count back while it wants more (`wait`: ms until it
 * books again), and removes it once it does not.
 *
 * The hash is read only when it can matter: a caller with no field whose call
 * holds one request is never ahead (its count starts below every other), so a
 * lone caller reads it only if it comes to want more.
 */
export const DEMAND = `
local served, known, behind, behindBack, lowest, latest, read = 0, false, nil, 0, nil, now, false
local function readDemand()
  read = true
  local demand, gone, mine = redis.call('HGETALL', KEYS[3]), {}, nil
  for j = 1, #demand, 2 do
    local id = demand[j]
    local c, b = string.match(demand[j + 1], '^(%S+) (%S+)$')
    c, b = tonumber(c), tonumber(b)
    if b + ${GRACE_MS} <= now then
      gone[#gone + 1] = id
    elseif id == me then
      mine, known = c, true
    else
      if lowest == nil or c < lowest then lowest = c end
      if b <= now and (behind == nil or c < behind) then behind, behindBack = c, b end
      if b > latest then latest = b end
    end
  end
  if #gone > 0 then redis.call('HDEL', KEYS[3], unpack(gone)) end
  served = served + (mine or (lowest and lowest - 1) or 0)
end
if m > 1 or listed then readDemand() end

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
  if not read then readDemand() end
  local back = now + wait
  redis.call('HSET', KEYS[3], me, str(served) .. ' ' .. str(back))
  if back > latest then latest = back end
  redis.call('PEXPIRE', KEYS[3], math.ceil(latest + ${GRACE_MS} - now))
end
`;

/**
 * Lua for the script that says whether a booking is due (see
 * {@link SharedStore.dueIn}): `heard(wait)` moves the caller's field, if it
 * has one, to when it books next (ms from now, as {@link DEMAND} keeps it):
 * one whose booking came due sooner holds back the others ahead of it at once.
 */
export const HEARD = `
local function heard(wait)
  local entry = redis.call('HGET', KEYS[3], me)
  if not entry then return end
  local back = now + wait
  redis.call('HSET', KEYS[3], me, string.match(entry, '^%S+') .. ' ' .. str(back))
  if redis.call('PTTL', KEYS[3]) < back + ${GRACE_MS} - now then
    redis.call('PEXPIRE', KEYS[3], math.ceil(back + ${GRACE_MS} - now))
  end
end
`;
