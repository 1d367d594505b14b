import { BOOKING_BATCH, DUE_POLL_MS } from "../../store/shared-store.js";

/**
 * How long past the time it said it would book again a process's demand
 * counts (ms): one that stopped booking (it crashed, or its waiters left)
 * holds the others back this long at most; one slower to come back joins
 * anew, a batch behind the lowest.
 */
const GRACE_MS = 1_000;

/**
 * How long after it last asked whether its booking for later is due a
 * waiting process is taken to ask again (ms): four of its polls
 * ({@link DUE_POLL_MS}). Until then, a booking that refunds have covered
 * counts as due (see {@link DEMAND}); a process that stopped asking (it
 * crashed, its waiter left) holds nobody back that way for longer.
 */
const ASKS_WITHIN_MS = 4 * DUE_POLL_MS;

/**
 * Lua for the booking script: fairness between the processes that want more
 * (see {@link SharedStore.book}). `KEYS[3]` is a hash with one field per such
 * process, named by the id it sends: `"<served> <back>"`, what it has taken in
 * batches while it wanted more, and when (Redis' clock, ms) it books next:
 * at once, or when its booking for later is due (as it last heard; refunds
 * bring that sooner, see {@link HEARD}). A process waiting for a booking for
 * later adds `" <asked> <marks>"`: when it last asked whether the booking is
 * due, and the booking's mark on each dimension (`-` where it costs nothing).
 *
 * Pasted at the top level once `now`, `m` (the requests sent), `me` (the
 * caller's id) and `listed` (whether the caller may have a field) are known.
 * `served` is the caller's count: what this call took, on top of what the hash
 * says (one that joins starts a batch behind the lowest, so that its first
 * batch puts it level). `weight(costs, dims, n)` is a request's weight in
 * batches ({@link BOOKING_BATCH}); `ahead(w, first)` whether taking one of
 * weight `w` would put the caller more than a batch past the lowest count of
 * the others due to book by now (the first of a call goes whenever the caller
 * is not ahead). One waiting for its booking for later is due once the levels
 * cover it (refunds bring that before the time it heard) while it still asks
 * ({@link ASKS_WITHIN_MS}): so the others do not run ahead in the moments
 * before its next question tells it. `fairWait()` is the ms to wait then.
 * `keepDemand(wait, more, booked)` writes the caller's count back while it
 * wants more (`wait`: ms until it books again, 0 for one stopped to let
 * another catch up, which would book at once; `booked`: the costs of its
 * booking for later, if it made one), and removes it once it does not.
 *
 * A field whose numbers are not finite ones (see `finite` in {@link PRELUDE})
 * is corrupt: it goes as one past its time does, and its process joins anew
 * (its tail is read only when its count is the lowest of those due later).
 *
 * The hash is read only when it can matter: a caller with no field whose call
 * holds one request is never ahead (its count starts below every other), so a
 * lone caller reads it only if it comes to want more.
 */
export const DEMAND = `
local served, known, behind, behindWait, lowest, latest, read = 0, false, nil, 0, nil, now, false

-- Whether the booking for later that a field's tail (' <asked> <marks>') tells of is covered now, by the levels
-- before this call's draws (level plus what was booked after a mark does not change with later draws), while its
-- process still asks. A tail written for another layout covers nothing; one that is not numbers is corrupt (nil).
local function covered(tail)
  local i, asked = -1, 0
  for token in string.gmatch(tail, '%S+') do
    if i < 0 then
      asked = finite(token)
      if asked == nil then return nil end
      if now - asked > ${ASKS_WITHIN_MS} then return false end
    elseif token ~= '-' then
      local d, mark = dims[i + 1], finite(token)
      if mark == nil then return nil end
      if d == nil or d.paused > now or d.level + math.max(0, d.total - mark) < -1e-9 * math.max(1, math.abs(mark)) then
        return false
      end
    end
    i = i + 1
  end
  return i == count, asked
end

local function readDemand()
  read = true
  local demand, gone, mine = redis.call('HGETALL', KEYS[3]), {}, nil
  for j = 1, #demand, 2 do
    local id = demand[j]
    local c, b, tail = string.match(demand[j + 1], '^(%S+) (%S+)(.*)$')
    c, b = finite(c), finite(b)
    -- A field that is not two numbers is corrupt: gone too (its process joins anew).
    if b == nil or c == nil or b + ${GRACE_MS} <= now then
      gone[#gone + 1] = id
    elseif id == me then
      mine, known = c, true
    else
      if lowest == nil or c < lowest then lowest = c end
      if behind == nil or c < behind then
        -- Soon, as the process behind books within its round trip; less often the longer it is overdue. One whose
        -- booking refunds covered books once its next question tells it so.
        if b <= now then
          behind, behindWait = c, (now - b) / 4
        elseif tail ~= '' then
          local due, asked = covered(tail)
          if due == nil then gone[#gone + 1] = id
          elseif due then behind, behindWait = c, asked + ${DUE_POLL_MS} - now end
        end
      end
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

local function fairWait()
  return math.min(math.max(behindWait, 1), ${DUE_POLL_MS})
end

local function keepDemand(wait, more, booked)
  if not more then
    if known then redis.call('HDEL', KEYS[3], me) end
    return
  end
  if not read then readDemand() end
  local back = now + wait
  local entry = str(served) .. ' ' .. str(back)
  if booked then
    -- Its marks: each dimension's total after its draw (nothing is drawn after it in this call).
    local marks = { entry, str(now) }
    for i = 1, count do marks[i + 2] = booked[i] > 0 and str(dims[i].total) or '-' end
    entry = table.concat(marks, ' ')
  end
  redis.call('HSET', KEYS[3], me, entry)
  if back > latest then latest = back end
  redis.call('PEXPIRE', KEYS[3], lasting(latest + ${GRACE_MS} - now))
end
`;

/**
 * Lua for the script that says whether a booking is due (see
 * {@link SharedStore.dueIn}): `heard(wait)` moves the caller's field, if it
 * has one, to when it books next (ms from now, as {@link DEMAND} keeps it),
 * and notes that it asked: one whose booking came due sooner holds back the
 * others ahead of it at once.
 */
export const HEARD = `
local function heard(wait)
  local entry = redis.call('HGET', KEYS[3], me)
  if not entry then return end
  local served, marks = string.match(entry, '^(%S+) %S+ %S+ (.*)$')
  if not served then served = string.match(entry, '^%S+') end
  -- A count that is not a number is corrupt: the field goes (the next booking joins anew).
  if finite(served) == nil then
    redis.call('HDEL', KEYS[3], me)
    return
  end
  local back = now + wait
  if marks then entry = served .. ' ' .. str(back) .. ' ' .. str(now) .. ' ' .. marks
  else entry = served .. ' ' .. str(back) end
  redis.call('HSET', KEYS[3], me, entry)
  if redis.call('PTTL', KEYS[3]) < back + ${GRACE_MS} - now then
    redis.call('PEXPIRE', KEYS[3], lasting(back + ${GRACE_MS} - now))
  end
end
`;
