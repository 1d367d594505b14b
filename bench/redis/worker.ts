/**
 * One process of the Redis benchmark (`node --import tsx bench/redis/worker.ts <job>`):
 * warms up on a key of its own, says "ready", and on "go" runs its job and reports.
 */
import { Cluster, Redis } from "ioredis";
import { admitter, UNBOUNDED, type Admitter } from "./admitters.js";
import {
  epochNow,
  type Job,
  type MakespanJob,
  type Report,
  type ThroughputJob,
  type ToParent,
  type ToWorker,
} from "./jobs.js";

const job = JSON.parse(process.argv[2]!) as Job;
const send = (message: ToParent): void => void process.send!(message);
/**
 * Callers and time of the warm-up: enough for the code to be optimised before the clock starts. A throughput job warms
 * up with as many callers as it runs (one caller takes other paths than 32), a makespan job with 32.
 */
const WARMUP_CALLERS = job.kind === "throughput" ? job.callers : 32;
const WARMUP_MS = 1_000;

/** Counts the commands a client sends (each one a round trip), from `reset()` on. */
function countCommands(client: Redis | Cluster): { reset(): void; readonly sent: number } {
  const counter = { sent: 0, reset: () => void (counter.sent = 0) };
  // A Cluster sends every command through its own sendCommand, which picks the node.
  const sender = client as unknown as { sendCommand(...args: unknown[]): unknown };
  const send = sender.sendCommand.bind(client);
  sender.sendCommand = (...args: unknown[]) => {
    counter.sent++;
    return send(...args);
  };
  return counter;
}

/** Admissions made by `callers` loops, each awaiting one after another until `end`. */
async function loop(lib: Admitter, callers: number, end: number): Promise<number> {
  let admissions = 0;
  const caller = async (): Promise<void> => {
    while (epochNow() < end) {
      await lib.admit();
      admissions++;
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return admissions;
}

async function throughput(
  { callers, durationMs }: ThroughputJob,
  lib: Admitter,
  start: number,
): Promise<Omit<Report, "commandsSent">> {
  const admissions = await loop(lib, callers, start + durationMs);
  return { admissions, elapsedMs: epochNow() - start, admittedAt: [] };
}

async function makespan(
  { requests }: MakespanJob,
  lib: Admitter,
  start: number,
): Promise<Omit<Report, "commandsSent">> {
  const admittedAt = await Promise.all(Array.from({ length: requests }, () => lib.admit().then(epochNow)));
  return { admissions: requests, elapsedMs: Math.max(...admittedAt) - start, admittedAt };
}

const redis =
  job.kind === "throughput" && job.cluster
    ? new Cluster([...job.cluster], { redisOptions: { autoResendUnfulfilledCommands: false } })
    : new Redis(job.redisUrl);
// llm-limiter's store sends nothing until the client is ready.
await new Promise((resolve) => redis.once("ready", resolve));
const commands = countCommands(redis);
// Scripts loaded and code warm before the clock starts; on a key the job does not use.
const warm = admitter(job.library, redis, `${job.key}:warmup:${process.pid}`, UNBOUNDED);
await loop(warm, WARMUP_CALLERS, epochNow() + WARMUP_MS);
warm.close();

const lib = admitter(job.library, redis, job.key, job.kind === "makespan" ? job.budget : UNBOUNDED);
process.once("message", async (message: ToWorker) => {
  if (message.type !== "go") return;
  commands.reset();
  const start = epochNow();
  const report = job.kind === "throughput" ? await throughput(job, lib, start) : await makespan(job, lib, start);
  send({ type: "done", report: { ...report, commandsSent: commands.sent } });
  lib.close();
  redis.disconnect();
  process.disconnect();
});
// Orphaned (the benchmark died): nothing will say "go".
process.once("disconnect", () => process.exit());
send({ type: "ready" });
