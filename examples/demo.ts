/**
 * `npm run demo [-- <seed>]`: a mixed workload through llm-limiter against the
 * built-in provider simulator, on virtual time, then the same workload from a
 * client with no limiter (`simulate()` of `llm-limiter/testing` runs both), and the
 * HTML report of both runs. Exits non-zero if llm-limiter failed a call or drew a 429.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clock } from "../src/simulate/format.js";
import { renderReport, simulate } from "../src/simulate/index.js";
import {
  PROGRESS_HEAD,
  RESULT_HEAD,
  failuresByKind,
  progressRow,
  resultRow,
  streamingTable,
  table,
  workloadTable,
} from "./demo/report.js";
import { QUOTA, buildWorkload, latencyMs } from "./demo/workload.js";

/** The progress table shows every tenth sample: a row every 10 simulated seconds. */
const SAMPLE_MS = 1_000;
const ROW_EVERY = 10;
/** Far beyond any sane makespan of this workload: a hang fails loudly instead. */
const LIMIT_MS = 30 * 60_000;

const seed = Number(process.argv[2] ?? 1);
if (!Number.isSafeInteger(seed)) throw new TypeError(`seed must be an integer, got ${process.argv[2]}`);
const calls = buildWorkload(seed);

/** Real elapsed seconds: `process.hrtime` is not among the faked clocks. */
const wallSeconds = (from: bigint): string => (Number(process.hrtime.bigint() - from) / 1e9).toFixed(1);

const started = process.hrtime.bigint();
const result = await simulate(
  calls.map((c) => ({ at: c.at, prompt: c.prompt, maxTokens: c.maxTokens, completion: c.actual })),
  {
    ...QUOTA,
    dialect: "openai",
    latencyMs: (c) => latencyMs({ actual: c.completion }),
    retries: 10,
    sampleMs: SAMPLE_MS,
    limitMs: LIMIT_MS,
  },
);
const wall = wallSeconds(started);
const { limiter, naive } = result;

console.log(`llm-limiter demo (seed ${seed})
One API key with a quota of ${QUOTA.rpm} requests and ${QUOTA.tpm.toLocaleString("en-US")} tokens per minute, enforced by the built-in
simulator as continuous token buckets with OpenAI's headers. A call is charged prompt + max_tokens
when admitted and refunded the unused part when its answer completes, 300 ms + 15 ms per output
token later.

${workloadTable(calls)}

No client can finish before ${clock(result.bound.ms, true)} (bound by ${result.bound.binding}: one full bucket, then the refill rate).

Through llm-limiter: new Limiter({ rpm: ${QUOTA.rpm}, tpm: ${QUOTA.tpm}, provider: "openai" }), 10 retries.
Every 10 simulated seconds: calls arrived, attempts admitted to the provider and answered, the
limiter's queue, in-flight calls and bucket levels (limiter.snapshot()), and the provider's 429s.
`);

const progress = streamingTable(PROGRESS_HEAD, 7);
console.log(progress.head);
for (const sample of limiter.samples.filter((_, i) => i > 0 && i % ROW_EVERY === 0)) {
  console.log(progress.row(progressRow(sample)));
}

console.log(`
The same workload, each client on a fresh key. No limiter: fire on arrival; on a 429 wait its
retry-after, then retry (at most 10 retries). bound/makespan: how close to the best possible
makespan a client came.

${table(RESULT_HEAD, [resultRow("llm-limiter", result, limiter), resultRow("no limiter", result, naive)])}

Tokens/min counts completed calls only; it can pass 100% because the buckets start full (one
capacity on top of the refill).${
  naive.summary.failed > 0
    ? `
* The bound assumes every call completes. The naive client gave up on ${failuresByKind(calls, naive)}
  calls: calls rejected together are told the same retry-after, retry together and collide again.`
    : ""
}
(Virtual time: ${wall} s of wall time for both runs.)
`);

const reportPath = join(tmpdir(), `llm-limiter-demo-${seed}.html`);
await writeFile(reportPath, renderReport(result, { title: `llm-limiter demo (seed ${seed})` }));
console.log(`Report with charts: ${reportPath}\n`);

// The limiter's promise: every call completes and the provider never answers 429.
const failed = limiter.outcomes.flatMap((o, i) => (o.ok ? [] : [{ ...o, call: calls[i]! }]));
if (failed.length === 0 && limiter.summary.rejected === 0) {
  console.log("OK: llm-limiter completed every call without drawing a single 429.");
} else {
  const SHOWN = 10;
  console.log(`FAIL: llm-limiter drew 429s (${limiter.summary.rejected}) or failed calls (${failed.length}):`);
  for (const o of failed.slice(0, SHOWN)) {
    console.log(
      `  call #${o.call.id} (${o.call.kind}, arrived ${clock(o.call.at)}) failed at ${clock(o.endedAt, true)}: ${o.error}`,
    );
  }
  process.exitCode = 1;
}
