import { DEMAND } from "./demand.js";
import { LAYOUT, PRELUDE, SLOTS, WAIT_FOR } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Refills every dimension, then takes each request's costs from all of them
 * at once, in order: admitted now (with a lease when concurrency is limited)
 * while the buckets have room; the first request that lacks room is booked for
 * later and ends the batch; one that finds room but no concurrency slot takes
 * nothing and ends it too.
 * A draw from a bucket within the refill of the arrival delay of full holds
 * its refill back until then: the provider's bucket may sit full until the
 * draw reaches it (see {@link SharedLayout.arrivalDelayMs}); a bucket well
 * below full refills as always. A draw booked for later is taken when it is
 * due (and arrives up to the arrival delay later): what refill would bring the
 * level past the capacity by then overflows the provider's bucket, which has
 * not seen the draw, and is taken off the level now; until then the level
 * stops at the capacity less the draws pending so (see {@link LAYOUT}).
 * Processes that want more go in step (see {@link DEMAND}): a request that
 * would put the caller more than a batch ahead of another ends the batch,
 * taking nothing.
 * KEYS: the bucket hash, the lease set, the demand hash. ARGV after the
 * layout: the number of requests m, m × count costs (request by request), the
 * arrival delay in ms, the caller's id, `1` when it has more queued (else
 * empty), `1` when it may have a field in the demand hash (else empty), then,
 * only when concurrency is limited, concurrency, leaseMs and the
 * lease id prefix (request r's lease is `prefix:r`). Reply: admitted,
 * booked (0 or 1), waitMs, binding dimension, then per dimension the total
 * before the batch (the client adds each request's costs for its marks: the
 * same doubles in the same order), the level after it, and what the booking
 * for later took besides its costs (the refill it overflows: given back with
 * it); numbers are integers when whole, strings otherwise.
 */
export const book: Script = {
  source: `${PRELUDE}${LAYOUT}${SLOTS}${WAIT_FOR}
local m = tonumber(ARGV[rest])
local after = rest + 1 + m * count
local delay = tonumber(ARGV[after])
local me, listed = ARGV[after + 1], ARGV[after + 3] == '1'
local concurrency = ARGV[after + 4] and tonumber(ARGV[after + 4])
${DEMAND}
local out = { 0, 0, 0, '' }
for i = 1, count do out[4 + i] = num(dims[i].total) end

local admitted, booked, wait, binding, costs, lost = 0, 0, 0, '', {}, {}
for i = 1, count do lost[i] = 0 end
for r = 1, m do
  local first = rest + (r - 1) * count
  for i = 1, count do costs[i] = tonumber(ARGV[first + i]) end
  local share = weight(costs, dims, count)
  if ahead(share, r == 1) then
    wait, binding = fairWait(), 'fairness'
    break
  end
  for i = 1, count do
    local d, cost = dims[i], costs[i]
    -- Float slack: refill arithmetic can land a hair under a level that is, exactly, reached.
    local w = waitFor(d, cost - d.level, 1e-9 * (cost > 1 and cost or 1), cost > 0)
    if w > wait then wait, binding = w, ARGV[d.a] end
  end
  if wait == 0 and concurrency then
    local leaseMs = tonumber(ARGV[after + 5])
    local free, retry = slot(concurrency, leaseMs, ARGV[after + 6] .. ':' .. r)
    if not free then
      wait, binding = retry, 'concurrency'
      break
    end
  end
  for i = 1, count do
    local d, cost = dims[i], costs[i]
    if cost > 0 and wait > 0 then
      -- Booked for later, it is drawn when due: the provider's bucket, which has not seen it, may fill before then
      -- and until it arrives; the refill that overflows is lost there, so here too.
      local held = d.at > now and d.at - now or 0
      local over = d.level + (math.max(0, wait - held) + delay) * d.limit / d.window - d.capacity
      if over > 0 then d.level, lost[i] = d.level - over, over end
      -- And until it arrives, refunds and refill that would fill that bucket overflow it too (see LAYOUT).
      unseen(d, cost, now + wait + delay)
    elseif cost > 0 and delay > 0 and d.level + delay * d.limit / d.window >= d.capacity and d.at < now + delay then
      -- Refill could fill the bucket before this draw reaches the provider, whose bucket may then sit full.
      d.at = now + delay
    end
    d.level, d.total = d.level - cost, d.total + cost
  end
  served = served + share
  if wait > 0 then
    booked = 1
    break
  end
  admitted = r
end

save(dims, count)
-- A booking for later is taken: only requests left untaken, or queued behind, want more. One stopped to let another
-- catch up would book now: the others count it as due (it may be the lowest by the time it books).
local more = admitted + booked < m or ARGV[after + 2] == '1'
keepDemand(binding == 'fairness' and 0 or wait, more, booked == 1 and costs or nil)
out[1], out[2], out[3], out[4] = admitted, booked, num(wait), binding
for i = 1, count do out[4 + count + i], out[4 + 2 * count + i] = num(dims[i].level), num(lost[i]) end
return out
`,
  sha1: "fc127dd4a554ceb93492190cd6e375517fd0b4b0",
};
