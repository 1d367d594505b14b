import { CHECK, KEEP, PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Extends the live leases among ARGV (after leaseMs) to `leaseMs` from now.
 * Expired ones are purged first, so a renewal never revives a freed slot.
 */
export const renew: Script = {
  source: `${PRELUDE}${CHECK}${KEEP}
local leaseMs = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
for i = 2, #ARGV do redis.call('ZADD', KEYS[2], 'XX', now + leaseMs, ARGV[i]) end
keep(KEYS[2], leaseMs)
`,
  sha1: "abd513f2ede04d8ef8133914d31ec1204ebdbc9b",
};
