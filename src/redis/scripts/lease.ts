import { PRELUDE, SLOTS } from "./lua.js";
import type { Script } from "./script.js";

/**
 * Takes a concurrency slot for a booking that came due. ARGV: concurrency,
 * leaseMs, lease id. Reply: the lease ('' when none is free), ms until the
 * earliest lease expires.
 */
export const lease: Script = {
  source: `${PRELUDE}${SLOTS}
local free, retry = slot(tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3])
return { free and ARGV[3] or '', str(retry) }
`,
  sha1: "29f81ebd06d3e96efea6115a331f0aeda08fdd4b",
};
