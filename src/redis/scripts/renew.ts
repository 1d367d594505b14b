import { PRELUDE } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Extends the live leases among ARGV (after leaseMs) to `leaseMs` from now.
 * Expired ones are purged first, so a renewal never revives a freed slot.
 */
export const renew: Script = {
  source: `${PRELUDE}
local leaseMs = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
for i = 2, #ARGV do redis.call('ZADD', KEYS[2], 'XX', now + leaseMs, ARGV[i]) end
keep(KEYS[2], leaseMs)
`,
  sha1: "7691e3dbe9694a2704f23a2cef2e4af1b4e27e2a",
};
