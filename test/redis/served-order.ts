/**
 * The order in which Redis served processes on one key: each booking call's
 * reply tells the key's count before it (its marks), so what every call took
 * can be put in the order Redis ran them, whichever process's clock saw it when.
 */
import type { RedisScriptClient } from "../../src/redis/index.js";
import { book } from "../../src/redis/scripts/book.js";
import { delay as sleep } from "../../src/testing/delay.js";

/** What one booking call of process `p` took: `taken` requests, after `before` on the key's first dimension. */
export interface Take {
  readonly p: number;
  readonly before: number;
  readonly taken: number;
}

/** `client`, recording each booking reply of process `p` into `takes`, and handing it on `lagMs` late. */
export function recording(client: RedisScriptClient, p: number, takes: Take[], lagMs: number): RedisScriptClient {
  const record = async (reply: unknown): Promise<unknown> => {
    // Reply: admitted, booked, waitMs, binding, then the first dimension's total before the batch (see the
    // script): it only grows, in the order Redis ran the calls.
    const [admitted, booked, , , before] = reply as [number, number, unknown, string, number | string];
    takes.push({ p, before: Number(before), taken: admitted + booked });
    if (lagMs > 0) await sleep(lagMs);
    return reply;
  };
  return {
    evalsha: (sha1, keys, args) => {
      const sent = client.evalsha(sha1, keys, args);
      return sha1 === book.sha1 ? sent.then(record) : sent;
    },
    eval: (script, keys, args) => {
      const sent = client.eval(script, keys, args);
      return script === book.source ? sent.then(record) : sent;
    },
  };
}

/** The widest gap between the processes' counts, as Redis took them. */
export function widestGap(takes: readonly Take[], processes: number): number {
  const counts = new Array<number>(processes).fill(0);
  let widest = 0;
  for (const { p, taken } of [...takes].sort((a, b) => a.before - b.before)) {
    counts[p]! += taken;
    widest = Math.max(widest, Math.max(...counts) - Math.min(...counts));
  }
  return widest;
}
