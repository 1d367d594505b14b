/**
 * `npm run demo [-- <seed>]`: a mixed workload through llm-limiter against the
 * built-in provider simulator, on virtual time, then the same workload from a
 * client with no limiter. Exits non-zero if llm-limiter failed a call or drew a 429.
 */
import type { ProviderStats } from "../src/testing/index.js";
import { LimitedClient, NaiveClient, replay, type Client, type Outcome } from "./demo/clients.js";
import {
  PROGRESS_HEAD,
  RESULT_HEAD,
  clock,
  failuresByKind,
  lowerBound,
  progressRow,
  resultRow,
  streamingTable,
  table,
  workloadTable,
} from "./demo/report.js";
import { onVirtualTime, type Scenario } from "./demo/virtual-time.js";
import { QUOTA, buildWorkload } from "./demo/workload.js";

const STEP_MS = 10_000;
/** Far beyond any sane makespan of this workload: a hang fails loudly instead. */
const LIMIT_MS = 30 * 60_000;

const seed = Number(process.argv[2] ?? 1);
if (!Number.isSafeInteger(seed)) throw new TypeError(`seed must be an integer, got ${process.argv[2]}`);
const calls = buildWorkload(seed);
const bound = lowerBound(calls);

interface Run {
  readonly outcomes: Outcome[];
  readonly stats: ProviderStats;
}

/** Replays the workload through `client`; its provider's stats are read once everything has ended. */
function scenario(client: Client, onStep?: (elapsedMs: number) => void): Scenario<Run> {
  const done = replay(calls, client).then((outcomes) => ({ outcomes, stats: client.provider.stats() }));
  return { done, onStep };
}

/** Real elapsed seconds: `process.hrtime` is not among the faked clocks. */
const wallSeconds = (from: bigint): string => (Number(process.hrtime.bigint() - from) / 1e9).toFixed(1);

console.log(`llm-limiter demo (seed ${seed})
One API key with a quota of ${QUOTA.rpm} requests and ${QUOTA.tpm.toLocaleString("en-US")} tokens per minute, enforced by the built-in
simulator as continuous token buckets with OpenAI's headers. A call is charged prompt + max_tokens
when admitted and refunded the unused part when its answer completes, 300 ms + 15 ms per output
token later.

${workloadTable(calls)}

No client can finish before ${clock(bound.ms, true)} (bound by ${bound.binding}: one full bucket, then the refill rate).

Through llm-limiter: new Limiter({ rpm: ${QUOTA.rpm}, tpm: ${QUOTA.tpm}, provider: "openai" }), 10 retries.
Every 10 simulated seconds: calls arrived, attempts admitted to the provider and answered, the
limiter's queue, in-flight calls and bucket levels (limiter.snapshot()), and the provider's 429s.
`);

const progress = streamingTable(PROGRESS_HEAD, 7);
console.log(progress.head);
const started = process.hrtime.bigint();
const limited = await onVirtualTime(
  () => {
    const client = new LimitedClient();
    return scenario(client, (elapsed) => {
      console.log(
        progress.row(progressRow(elapsed, calls, client.admitted, client.limiter.snapshot(), client.provider.stats())),
      );
    });
  },
  STEP_MS,
  LIMIT_MS,
);
const limitedWall = wallSeconds(started);

const naiveStarted = process.hrtime.bigint();
const naive = await onVirtualTime(() => scenario(new NaiveClient()), STEP_MS, LIMIT_MS);
const naiveWall = wallSeconds(naiveStarted);

console.log(`
The same workload, each client on a fresh key. No limiter: fire on arrival; on a 429 wait its
retry-after, then retry (at most 10 retries). bound/makespan: how close to the best possible
makespan a client came.

${table(RESULT_HEAD, [resultRow("llm-limiter", calls, limited.outcomes, limited.stats), resultRow("no limiter", calls, naive.outcomes, naive.stats)])}

Tokens/min counts completed calls only; it can pass 100% because the buckets start full (one
capacity on top of the refill).${
  naive.outcomes.some((o) => !o.ok)
    ? `
* The bound assumes every call completes. The naive client gave up on ${failuresByKind(naive.outcomes)}
  calls: calls rejected together are told the same retry-after, retry together and collide again.`
    : ""
}
(Virtual time: ${limitedWall} s and ${naiveWall} s of wall time.)
`);

// The limiter's promise: every call completes and the provider never answers 429.
const failed = limited.outcomes.filter((o) => !o.ok);
const rejected = limited.stats.calls.filter((c) => c.status === 429);
if (failed.length === 0 && rejected.length === 0) {
  console.log("OK: llm-limiter completed every call without drawing a single 429.");
} else {
  const SHOWN = 10;
  console.log(`FAIL: llm-limiter drew 429s (${rejected.length}) or failed calls (${failed.length}):`);
  for (const c of rejected.slice(0, SHOWN)) {
    console.log(
      `  429 at ${clock(c.receivedAt, true)} on ${c.rejectedBy}: prompt ${c.prompt} + max_tokens ${c.maxTokens}, retry-after-ms ${c.retryAfterMs}`,
    );
  }
  for (const o of failed.slice(0, SHOWN)) {
    console.log(
      `  call #${o.call.id} (${o.call.kind}, arrived ${clock(o.call.at)}) failed at ${clock(o.endedAt, true)}: ${o.error}`,
    );
  }
  process.exitCode = 1;
}
