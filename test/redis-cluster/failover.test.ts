/**
 * The primary holding the limiters' slot is SIGKILLed mid-run, and its replica
 * takes over (cluster-node-timeout 1 s). Under `fail-closed`, every call must
 * still complete, the limiters must resume once the replica is promoted, and
 * the provider may be over-admitted by no more than the admissions Redis
 * acknowledged within the replication lag before the kill: the writes a replica
 * can lose. The lag is measured just before the kill, two ways: the
 * primary's replication offset against the replica's, and the time `WAIT 1`
 * takes to hear the replica acknowledge everything written so far. On one host
 * the replica holds every write within a millisecond, so the bound is
 * usually 0 requests, and so is the over-admission; the test prints both.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { createProvider } from "../../src/testing/index.js";
import { delay } from "../../src/testing/delay.js";
import { parseInfo, type ClusterNode, type RedisCluster, type SlotOwner } from "./cluster.js";
import {
  boundMs,
  callThrough,
  CLUSTER_CLIENT_NAMES,
  clusterForTests,
  describeCluster,
  limitersOn,
  within,
  type BookingReply,
  type Quota,
} from "./helpers.js";

const QUOTA: Quota = { rpm: 600, tpm: 600_000 };
const LIMITERS = 3;
/** The burst, 600 calls at once, spread over the limiters. */
const BURST = 600;
/**
 * Then each limiter makes a call every 250 ms: 12/s in all against a refill of
 * 10/s, so every limiter has calls waiting from then on (the last is due 7.1 s
 * after the start, the burst's refill held back 500 ms) and the provider's
 * bucket stays empty: a request over-admitted is a 429.
 */
const STEADY_EACH = 22;
const STEADY_EVERY_MS = 250;
const CALLS = BURST + LIMITERS * STEADY_EACH;
/** When the primary dies: the burst is done, and admissions come at the refill rate. */
const KILL_AT_MS = 1_500;
/** Replication is sampled every 10 ms over the 500 ms before the kill (the burst's calls are done by then). */
const SAMPLE_FOR_MS = 500;
const SAMPLE_EVERY_MS = 10;
/** The replica takes over in about 2 to 3 s (node timeout 1 s, then the election). */
const PROMOTION_WITHIN_MS = 15_000;
/**
 * From the promotion to each limiter's next admission: its outage backoff (2 s at most), a
 * command's timeout (250 ms), the client finding the new primary, and a loaded machine's delays.
 */
const RESUME_WITHIN_MS = 4_000;

/** A key of ours whose slot is on a primary that has a replica (a killed primary's shard has none left). */
async function keyWithReplica(cluster: RedisCluster): Promise<{ key: string; owner: SlotOwner }> {
  for (;;) {
    const key = `failover:${randomUUID()}`;
    const owner = await cluster.ownerOf(`{${key}}:b`);
    if (owner.replicas.length > 0) return { key, owner };
  }
}

/** Replication as the primary and its replica report it at the same moment. */
interface ReplicationSample {
  /** `master_repl_offset` of the primary less `slave_repl_offset` of the replica, in bytes. */
  readonly lagBytes: number;
  readonly primaryOffset: number;
}

async function sample(cluster: RedisCluster, primary: ClusterNode, replica: ClusterNode): Promise<ReplicationSample> {
  const [ofPrimary, ofReplica] = await Promise.all(
    [primary, replica].map(async (n) => parseInfo(await cluster.node(n.port).info("replication"))),
  );
  const primaryOffset = Number(ofPrimary!.get("master_repl_offset"));
  return { lagBytes: primaryOffset - Number(ofReplica!.get("slave_repl_offset")), primaryOffset };
}

/** Milliseconds until the replica acknowledges every write the primary made so far (`WAIT 1`). */
async function waitMs(cluster: RedisCluster, primary: ClusterNode): Promise<number> {
  const start = performance.now();
  const acknowledged = await cluster.node(primary.port).call("WAIT", "1", "1000");
  if (acknowledged !== 1) throw new Error(`WAIT 1 1000: ${String(acknowledged)} replicas acknowledged`);
  return performance.now() - start;
}

/** Requests booked by the answers that came in `[from, to)`. */
const takenBetween = (bookings: readonly BookingReply[], from: number, to: number): number =>
  bookings.filter((b) => b.at >= from && b.at < to).reduce((sum, b) => sum + b.taken, 0);

describeCluster("the primary of the limiters' slot killed mid-run", () => {
  const clusterOfFile = clusterForTests({ nodeTimeoutMs: 1_000 });

  it.each(CLUSTER_CLIENT_NAMES)(
    "%s: every call completes, the limiters resume on the promoted replica, over-admission within the lag",
    { timeout: 60_000 },
    async (clientName) => {
      const cluster = clusterOfFile();
      const { key, owner } = await keyWithReplica(cluster);
      const replica = owner.replicas[0]!;
      const { limiters, warnings, bookings, close } = await limitersOn(cluster, clientName, key, {
        count: LIMITERS,
        quota: QUOTA,
        onError: "fail-closed",
      });
      try {
        const provider = createProvider({ ...QUOTA, latencyMs: (call) => 50 + 4 * call.actual, seed: 5 });
        const start = performance.now();
        const burst = Array.from({ length: BURST }, (_, i) => callThrough(limiters, i % LIMITERS, provider));
        const steady = limiters.flatMap((_, l) =>
          Array.from({ length: STEADY_EACH }, (_, k) =>
            delay(STEADY_EVERY_MS * (k + 1)).then(() => callThrough(limiters, l, provider)),
          ),
        );
        const calls = within(40_000, "the calls", Promise.all([...burst, ...steady]));
        calls.catch(() => {}); // awaited below, once the failover is done

        // Replication while the limiters run at the refill rate, then the kill.
        await delay(KILL_AT_MS - SAMPLE_FOR_MS);
        const sampledFrom = performance.now();
        const samples: ReplicationSample[] = [];
        while (performance.now() - start < KILL_AT_MS) {
          samples.push(await sample(cluster, owner.primary, replica));
          await delay(SAMPLE_EVERY_MS);
        }
        const lagMs = await waitMs(cluster, owner.primary);
        // The moment the replica takes over, and may take writes: from then on, answers may come from it.
        const elected = replica.logged(/Failover election won/);
        const killAt = performance.now();
        await owner.primary.kill();
        await cluster.promoted(replica, PROMOTION_WITHIN_MS);
        const promotedAt = await elected;

        const outcomes = await calls;
        const end = Math.max(...outcomes.map((o) => o.admittedAt));
        const last = samples.at(-1)!;
        // Replication bytes per request booked while sampling (its settle and header sync included), to
        // tell the lag in requests.
        const sampledBytes = last.primaryOffset - samples[0]!.primaryOffset;
        const bytesPerRequest = sampledBytes / Math.max(1, takenBetween(bookings, sampledFrom, killAt));
        // What the replica may have missed: the requests booked by answers within the lag before the
        // kill, and by answers still on their way when the primary died (any before the promotion).
        const ackedInLag = takenBetween(bookings, killAt - lagMs, promotedAt);
        // A write the replica missed returns its requests to the bucket: the provider rejects as many.
        const overAdmitted = outcomes.filter((o) => o.status === 429 && o.admittedAt >= killAt).length;
        const resumedAfter = limiters.map((_, l) => {
          const after = outcomes.filter((o) => o.limiter === l && o.admittedAt >= promotedAt);
          return Math.min(...after.map((o) => o.admittedAt)) - promotedAt;
        });
        const admittedDown = outcomes.filter((o) => o.admittedAt >= killAt && o.admittedAt < promotedAt).length;
        const ms = (x: number): string => `${x.toFixed(0)} ms`;
        const largest = Math.max(...samples.map((s) => s.lagBytes));
        console.log(
          [
            `[cluster failover] ${clientName}: the primary of slot ${owner.slot} killed ${ms(killAt - start)} ` +
              `into the run; its replica promoted ${ms(promotedAt - killAt)} later; the limiters resumed ` +
              `${resumedAfter.map(ms).join(", ")} after that.`,
            `  replication lag at the kill: ${last.lagBytes} bytes (largest of ${samples.length} samples in the ` +
              `${SAMPLE_FOR_MS} ms before: ${largest} bytes; ${bytesPerRequest.toFixed(0)} bytes per request booked, so ` +
              `${(last.lagBytes / bytesPerRequest).toFixed(2)} and ${(largest / bytesPerRequest).toFixed(2)} ` +
              `requests); WAIT 1 answered in ${lagMs.toFixed(2)} ms.`,
            `  requests booked by answers within that lag or on their way at the kill: ${ackedInLag}; ` +
              `over-admission (429s of calls admitted after the kill): ${overAdmitted}.`,
            `  admitted while the slot had no primary: ${admittedDown}; 429s in all: ${provider.stats().rejected}; ` +
              `warnings: ${warnings.length}; makespan ${((end - start) / 1_000).toFixed(2)} s ` +
              `(no sooner than ${(boundMs(QUOTA, CALLS) / 1_000).toFixed(2)} s).`,
          ].join("\n"),
        );

        expect(outcomes).toHaveLength(CALLS);
        expect(overAdmitted).toBeLessThanOrEqual(ackedInLag);
        for (const resumed of resumedAfter) expect(resumed).toBeLessThan(RESUME_WITHIN_MS);
      } finally {
        await close();
      }
    },
  );
});
