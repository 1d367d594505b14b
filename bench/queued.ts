/**
 * Child process: `queued.ts <index> <warmup> <count>` prints the heap bytes per
 * queued waiter for `queuedWaits[index]`. A fresh process per library keeps
 * heaps apart, and lets the queues that never drain end with the process.
 */
import { heapPerWaiter } from "./measure.js";
import { queuedWaits } from "./peers.js";

const [index, warmup, count] = process.argv.slice(2).map(Number);
const wait = queuedWaits[index ?? -1];
if (!wait || !warmup || !count) throw new Error("usage: queued.ts <index> <warmup> <count>");
const bytes = await heapPerWaiter(await wait.setup(), warmup, count);
process.stdout.write(`${JSON.stringify(bytes)}\n`);
process.exit(0);
