import { CHECK, PRELUDE, SLOTS } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Takes a concurrency slot for a booking that came due. ARGV: concurrency,
 * leaseMs, lease id. Reply: the lease ('' when none is free), ms until the
 * earliest lease expires.
 */
export const lease: Script = {
  source: `${PRELUDE}${CHECK}${SLOTS}
local free, retry = slot(tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])
return { free and ARGV[3] or '', num(retry) }
`,
  sha1: "c1c65f6ce10ff19b42e9527375122ab6b6db6bc0",
};
