/**
 * The workloads of providers that send no rate-limit headers (issue 25): llm-limiter with
 * nothing configured (`new Limiter()`), each dialect named, over two quota sizes and two
 * seeds; and a self-hosted server whose capacity is concurrency, beside a sweep of fixed
 * concurrencies.
 */
import type { HeaderlessDialect } from "../../src/testing/dialects.js";
import type { WindowMode } from "../../src/testing/dimensions.js";
import { chat, medium, stream, type Job, type Quota, type Workload } from "./workloads.js";

/** A dialect whose provider meters a rate, and how it keeps count. */
interface RateDialect {
  readonly dialect: Exclude<HeaderlessDialect, "self-hosted">;
  readonly name: string;
  /** Gemini's per-minute quotas reset at second 00 (docs/providers.md), OpenRouter's per fixed window. */
  readonly window: WindowMode;
}

const RATE_DIALECTS: readonly RateDialect[] = [
  { dialect: "gemini", name: "Gemini, RESOURCE_EXHAUSTED", window: "fixed" },
  { dialect: "bedrock", name: "Bedrock, ThrottlingException", window: "bucket" },
  { dialect: "bare", name: "bare 429 + retry-after (DeepSeek-like)", window: "bucket" },
  { dialect: "openrouter", name: "OpenRouter, limits in the 429 body", window: "fixed" },
];

/** A small key and one ten times larger (600 RPM, the example). */
const QUOTAS: readonly Quota[] = [
  { rpm: 60, tpm: 40_000 },
  { rpm: 600, tpm: 400_000 },
];
const SEEDS = [1, 2] as const;
const BURST_MS = 1_000;
const STEADY_MINUTES = 3;
/** Tokens a medium call uses on average (prompt 1,000–2,000, answer 200–400). */
const MEDIUM_USED = 1_800;

interface Shape {
  readonly id: string;
  readonly name: string;
  jobs(quota: Quota, seed: number): Job[];
}

const SHAPES: readonly Shape[] = [
  {
    id: "rpm-burst",
    name: "RPM-bound burst of 3x the quota",
    // Chat calls reserve at most 556 tokens: 3 x RPM of them stay under the TPM.
    jobs: (quota, seed) => stream(3 * quota.rpm, BURST_MS, 0, seed, chat),
  },
  {
    id: "tpm-burst",
    name: "TPM-bound burst of 3x the quota",
    // About 2,000 tokens reserved a call: a minute's TPM admits a third of the RPM.
    jobs: (quota, seed) => stream(Math.round((3 * quota.tpm) / MEDIUM_USED), BURST_MS, 0, 100 + seed, medium),
  },
  {
    id: "steady",
    name: "steady arrivals at 1.5x the RPM",
    jobs: (quota, seed) => stream(1.5 * quota.rpm * STEADY_MINUTES, STEADY_MINUTES * 60_000, 0, 200 + seed, chat),
  },
];

function rateWorkload(d: RateDialect, shape: Shape, quota: Quota, seed: number): Workload {
  const jobs = shape.jobs(quota, seed);
  return {
    id: `${d.dialect}-${shape.id}-${quota.rpm}-s${seed}`,
    title: `${d.name}: ${shape.name}, ${quota.rpm} RPM / ${quota.tpm / 1_000}k TPM, seed ${seed}`,
    summary:
      `${jobs.length.toLocaleString("en-US")} calls against a ${d.dialect} provider (no rate-limit headers, ` +
      `${d.window === "fixed" ? "clock-aligned minute windows" : "token buckets"}); llm-limiter with nothing ` +
      "configured, the peers told the true quota.",
    provider: { quota, window: d.window, dialect: d.dialect },
    told: quota,
    limiterSetup: "nothing",
    clients: 1,
    jobs,
    columns: ["late share"],
  };
}

/** The self-hosted server meters no rate: only its calls in flight bind. */
const UNMETERED: Quota = { rpm: 100_000_000, tpm: 100_000_000_000 };
/** The fixed concurrencies swept, up to twice the largest server's capacity. */
const SWEEP = [1, 2, 4, 8, 16, 32, 64] as const;
/** The demo's mean latency at full speed, 300 + 15 x 110 ms, for the steady arrivals' rate. */
const MEAN_LATENCY_MS = 1_950;

interface Server {
  /** Calls at full speed at once. */
  readonly batch: number;
  /** Calls in flight beyond which it answers 429 "Model is overloaded". */
  readonly capacity: number;
}

const SERVERS: readonly Server[] = [
  { batch: 8, capacity: 32 },
  { batch: 4, capacity: 16 },
];

function serverWorkload(server: Server, steady: boolean, seed: number): Workload {
  const perMs = (1.5 * server.batch) / MEAN_LATENCY_MS;
  const count = steady ? Math.round(perMs * STEADY_MINUTES * 60_000) : 300;
  const jobs = stream(count, steady ? STEADY_MINUTES * 60_000 : 0, 0, 300 + seed, chat);
  const shape = steady ? "steady arrivals at 1.5x its throughput" : "a burst of 300 calls";
  return {
    id: `self-hosted-${steady ? "steady" : "burst"}-${server.batch}-s${seed}`,
    title: `self-hosted server (batch ${server.batch}, capacity ${server.capacity}): ${shape}, seed ${seed}`,
    summary:
      `${jobs.length.toLocaleString("en-US")} chat calls; latency (300 + 15 x answer tokens) ms x max(1, in flight / ` +
      `${server.batch}) at admission; beyond ${server.capacity} in flight, TGI's 429 "Model is overloaded" (no hint: ` +
      "the peers' retry waits 1 s).",
    provider: {
      quota: UNMETERED,
      window: "bucket",
      dialect: "self-hosted",
      concurrency: server.capacity,
      batch: server.batch,
    },
    told: UNMETERED,
    limiterSetup: "nothing",
    peers: false,
    clients: 1,
    jobs,
    columns: [],
    sweep: SWEEP,
  };
}

export const headerlessWorkloads: readonly Workload[] = [
  ...RATE_DIALECTS.flatMap((d) =>
    SHAPES.flatMap((shape) => QUOTAS.flatMap((quota) => SEEDS.map((seed) => rateWorkload(d, shape, quota, seed)))),
  ),
  ...SERVERS.flatMap((server) =>
    [false, true].flatMap((steady) => SEEDS.map((seed) => serverWorkload(server, steady, seed))),
  ),
];
