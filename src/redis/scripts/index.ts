import { adjust } from "./adjust.js";
import { book } from "./book.js";
import { due } from "./due.js";
import { lease } from "./lease.js";
import { lower } from "./lower.js";
import { pause } from "./pause.js";
import { release } from "./release.js";
import { renew } from "./renew.js";
import { unpause } from "./unpause.js";

/** Every script the store runs, by name. */
export const scripts = { book, due, lease, adjust, lower, pause, unpause, renew, release };

export type { Script } from "./script.js";
