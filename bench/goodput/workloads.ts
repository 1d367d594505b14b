/**
 * The workloads: who calls, when, how large, and what quota the provider
 * really enforces versus what each client is told. Answer lengths are drawn
 * here (seeded), so every library meets the same calls and the same answers.
 */
import type { SimulatedDialect } from "../../src/testing/index.js";
import type { HeaderStamp } from "../../src/testing/options.js";
import type { HeaderlessDialect } from "../../src/testing/dialects.js";
import type { WindowMode } from "../../src/testing/dimensions.js";
import { between, seededRandom } from "../../src/testing/random.js";

export interface Quota {
  readonly rpm: number;
  readonly tpm: number;
}

export interface Job {
  /** Arrival, in ms after the workload starts. */
  readonly at: number;
  /** Which client (limiter instance) sends it. */
  readonly client: number;
  readonly prompt: number;
  readonly maxTokens: number;
  /** The answer's length, passed to the simulator as `actual`. */
  readonly actual: number;
}

/**
 * What llm-limiter is configured with, default options otherwise (the user's path): the
 * told quota and the provider's name, the quota alone (the provider left to detection),
 * or nothing at all (`new Limiter()`, every limit learned from headers).
 */
export type LimiterSetup = "quota and provider" | "quota" | "nothing";

/** A column a workload's table adds, for the figure its target is about. */
export type Column =
  | "late share"
  | "429s per call"
  | "429s after 5 responses"
  | "admissions / min from 60 s"
  | "429s of the restarted process";

export interface Workload {
  readonly id: string;
  readonly title: string;
  /** One sentence for the results file. */
  readonly summary: string;
  /** What the simulated provider enforces, and how it meters and reports it. */
  readonly provider: {
    readonly quota: Quota;
    readonly window: WindowMode;
    readonly dialect: SimulatedDialect;
    /** When admitted calls' headers are stamped. Default: the simulator's (`"completion"`). */
    readonly stampHeaders?: HeaderStamp;
    /** Most calls in flight at once (a self-hosted server's capacity). Default: none. */
    readonly concurrency?: number;
    /**
     * Calls a self-hosted server runs at full speed at once: with more in flight, each call's latency is stretched by
     * inFlight / batch at its admission (its throughput shared). Default: latency does not depend on the load.
     */
    readonly batch?: number;
  };
  /**
   * Each call reaches the provider a delay drawn uniformly from 0..`maxMs` after it is sent (seeded). Default: at once.
   */
  readonly arrival?: { readonly maxMs: number; readonly seed: number };
  /** The quota each client is told (what its user believes). */
  readonly told: Quota;
  /** Default `"quota and provider"`. */
  readonly limiterSetup?: LimiterSetup;
  /** Whether the five peers run (they need a quota; "nothing configured" is not a setup they have). Default true. */
  readonly peers?: boolean;
  readonly clients: number;
  readonly jobs: readonly Job[];
  /** The client whose process starts later, a restart: its 429s have a column. */
  readonly restartedClient?: number;
  /** Extra columns, each the figure a target applies to. */
  readonly columns: readonly Column[];
  /** The sizes of the fixed-concurrency semaphores that run beside the contenders (a self-hosted server's sweep). */
  readonly sweep?: readonly number[];
}

/** The dialects whose providers send no rate-limit headers: no `provider` to name to llm-limiter. */
const HEADERLESS: readonly SimulatedDialect[] = [
  "gemini",
  "bedrock",
  "bare",
  "openrouter",
  "self-hosted",
] satisfies readonly HeaderlessDialect[];

export function isHeaderless(dialect: SimulatedDialect): dialect is HeaderlessDialect {
  return HEADERLESS.includes(dialect);
}

export type Size = Pick<Job, "prompt" | "maxTokens" | "actual">;

/** `count` jobs of `client` arriving evenly over `overMs` from `fromMs`, sized by `size`. */
export function stream(
  count: number,
  overMs: number,
  client: number,
  seed: number,
  size: (random: () => number) => Size,
  fromMs = 0,
): Job[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({ at: fromMs + (i * overMs) / count, client, ...size(random) }));
}

export const chat = (random: () => number): Size => ({
  prompt: between(random, 100, 300),
  maxTokens: 256,
  actual: between(random, 20, 200),
});
const longContext = (random: () => number): Size => ({
  prompt: between(random, 6_000, 10_000),
  maxTokens: 512,
  actual: between(random, 100, 500),
});
const overReserved = (random: () => number): Size => ({
  prompt: between(random, 300, 700),
  maxTokens: 4_096,
  actual: between(random, 200, 400),
});
export const medium = (random: () => number): Size => ({
  prompt: between(random, 1_000, 2_000),
  maxTokens: 500,
  actual: between(random, 200, 400),
});

const CHAT_QUOTA: Quota = { rpm: 500, tpm: 1_000_000 };
const chatBurst = stream(2_000, 10_000, 0, 1, chat);
const LONG_CONTEXT_QUOTA: Quota = { rpm: 500, tpm: 300_000 };
const longContextStream = stream(400, 400_000, 0, 2, longContext);

/** Arrivals spread as a real network spreads them: connections opening, TLS, proxies, a busy event loop. */
const LATE_ARRIVALS = { maxMs: 400, seed: 8 };
/** A high-tier OpenAI key. */
const HIGH_TIER: Quota = { rpm: 10_000, tpm: 2_000_000 };
/** Workload 13: when the second process starts, its predecessor's burst long completed. */
const RESTART_AT_MS = 5_000;

/** Prompt 200, max_tokens 200, answers 50–150: reserves 400, uses about 300. */
const steady = (random: () => number): Size => ({ prompt: 200, maxTokens: 200, actual: between(random, 50, 150) });

/** Three processes taking turns at a steady stream at the key's rate, as a load balancer spreads it. */
function roundRobin(count: number, overMs: number): Job[] {
  return stream(count, overMs, 0, 15, steady).map((job, i) => ({ ...job, client: i % 3 }));
}

/** Three clients' streams merged in arrival order. */
function sharedKey(): Job[] {
  return [0, 1, 2].flatMap((client) => stream(600, 60_000, client, 10 + client, chat)).sort((a, b) => a.at - b.at);
}

export const workloads: readonly Workload[] = [
  {
    id: "1",
    title: "chat burst (RPM binds)",
    summary:
      "2,000 short chat calls (prompt 100–300, max_tokens 256, answers 20–200) arriving within 10 s; 500 RPM, 1M TPM.",
    provider: { quota: CHAT_QUOTA, window: "bucket", dialect: "openai" },
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    columns: [],
  },
  {
    id: "2",
    title: "long context above TPM",
    summary:
      "400 calls with 6k–10k-token prompts (max_tokens 512, answers 100–500), one a second: ~500k TPM offered to a 300k TPM key.",
    provider: { quota: LONG_CONTEXT_QUOTA, window: "bucket", dialect: "openai" },
    told: LONG_CONTEXT_QUOTA,
    clients: 1,
    jobs: longContextStream,
    columns: [],
  },
  {
    id: "3",
    title: "max_tokens 4096, ~300-token answers",
    summary:
      "1,000 calls in the first minute, prompt 300–700, max_tokens 4096, answers 200–400: reserves ~6x what it uses; 500 RPM, 200k TPM.",
    provider: { quota: { rpm: 500, tpm: 200_000 }, window: "bucket", dialect: "openai" },
    told: { rpm: 500, tpm: 200_000 },
    clients: 1,
    jobs: stream(1_000, 60_000, 0, 3, overReserved),
    columns: [],
  },
  {
    id: "4",
    title: "told twice the real TPM",
    summary:
      "600 calls (prompt 1k–2k, max_tokens 500, answers 200–400), two a second; the key allows 150k TPM, the client is told 300k. " +
      "Told 300k, a limiter never binds on this stream: only one that learns the real limit from the headers holds back.",
    provider: { quota: { rpm: 500, tpm: 150_000 }, window: "bucket", dialect: "openai" },
    told: { rpm: 500, tpm: 300_000 },
    clients: 1,
    jobs: stream(600, 300_000, 0, 4, medium),
    columns: ["late share"],
  },
  {
    id: "5",
    title: "three clients, one key",
    summary:
      "Three limiter instances, each told the key's full 500 RPM, each sending 600 chat calls in the first minute (1,800 in all). " +
      "Each instance alone would admit its 600 within its own quota: only one that sees the others through the headers holds back.",
    provider: { quota: CHAT_QUOTA, window: "bucket", dialect: "openai" },
    told: CHAT_QUOTA,
    clients: 3,
    jobs: sharedKey(),
    columns: ["late share"],
  },
  {
    id: "6",
    title: "chat burst, fixed-window provider",
    summary:
      "Workload 1 against a provider counting per clock-aligned minute (the run starts 25.5 s into one); OpenAI headers.",
    provider: { quota: CHAT_QUOTA, window: "fixed", dialect: "openai" },
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    columns: [],
  },
  {
    id: "7",
    title: "chat burst, Azure 10 s sub-windows",
    summary:
      "Workload 1 against a provider enforcing each per-minute limit as floor(limit / 6) per 10 s window; Azure headers (no reset).",
    provider: { quota: CHAT_QUOTA, window: "azure", dialect: "azure" },
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    columns: ["late share"],
  },
  {
    id: "8",
    title: "chat burst, arrivals 0–400 ms late",
    summary:
      "Workload 1 with each call reaching the provider 0–400 ms after it is sent (uniform, seeded: connections, TLS, proxies), " +
      "headers stamped at completion. The oracle is safe for any delay in that range.",
    provider: { quota: CHAT_QUOTA, window: "bucket", dialect: "openai", stampHeaders: "completion" },
    arrival: LATE_ARRIVALS,
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    columns: [],
  },
  {
    id: "9",
    title: "long context above TPM, arrivals 0–400 ms late",
    summary:
      "Workload 2 with each call reaching the provider 0–400 ms after it is sent (uniform, seeded), headers stamped at completion.",
    provider: { quota: LONG_CONTEXT_QUOTA, window: "bucket", dialect: "openai", stampHeaders: "completion" },
    arrival: LATE_ARRIVALS,
    told: LONG_CONTEXT_QUOTA,
    clients: 1,
    jobs: longContextStream,
    columns: [],
  },
  {
    id: "10",
    title: "Azure headers, provider not given",
    summary:
      "Workload 7 (10 s sub-windows, Azure's headers: limit and remaining, no reset) with llm-limiter told the quota but not `provider`: " +
      "it must read the window from the headers alone. A run still waiting after 6 simulated hours is cut off (its calls count as given up).",
    provider: { quota: CHAT_QUOTA, window: "azure", dialect: "azure" },
    told: CHAT_QUOTA,
    limiterSetup: "quota",
    clients: 1,
    jobs: chatBurst,
    columns: [],
  },
  {
    id: "11",
    title: "nothing configured, high-tier key",
    summary:
      "`new Limiter()` with no limits against a 10,000 RPM / 2M TPM OpenAI key, 30,000 chat calls (three times its RPM) arriving within 10 s: " +
      "every limit is learned from the headers. The peers have no such setup and sit out.",
    provider: { quota: HIGH_TIER, window: "bucket", dialect: "openai" },
    told: HIGH_TIER,
    limiterSetup: "nothing",
    peers: false,
    clients: 1,
    jobs: stream(30_000, 10_000, 0, 11, chat),
    columns: ["429s per call", "429s after 5 responses"],
  },
  {
    id: "12",
    title: "told 10x the real RPM",
    summary:
      "60 chat calls at once against a key of 10 RPM; every client is told 100 RPM. Only a client that learns the real limit " +
      "from the responses converges: admissions per minute from the 60th second on, against the oracle's.",
    provider: { quota: { rpm: 10, tpm: CHAT_QUOTA.tpm }, window: "bucket", dialect: "openai" },
    told: { rpm: 100, tpm: CHAT_QUOTA.tpm },
    clients: 1,
    jobs: stream(60, 0, 0, 12, chat),
    columns: ["429s after 5 responses", "admissions / min from 60 s"],
  },
  {
    id: "13",
    title: "restart while the key is drained",
    summary:
      "A first process drains the key with 500 chat calls at once; 5 s later (a rolling deploy) a new process, a new client on the same " +
      "configuration, starts with 500 calls of its own while the key has refilled only 5 s worth.",
    provider: { quota: CHAT_QUOTA, window: "bucket", dialect: "openai" },
    told: CHAT_QUOTA,
    clients: 2,
    jobs: [...stream(500, 0, 0, 13, chat), ...stream(500, 0, 1, 14, chat, RESTART_AT_MS)],
    restartedClient: 1,
    columns: ["429s of the restarted process"],
  },
  {
    id: "14",
    title: "three processes, steady arrivals, no shared store",
    summary:
      "Three limiter instances on one 600 RPM / 100k TPM key, each told the full quota, taking turns at 1,800 calls arriving one per " +
      "100 ms (reserving 400 tokens, using about 300: TPM binds), each call reaching the provider up to 200 ms late.",
    provider: { quota: { rpm: 600, tpm: 100_000 }, window: "bucket", dialect: "openai" },
    arrival: { maxMs: 200, seed: 14 },
    told: { rpm: 600, tpm: 100_000 },
    clients: 3,
    jobs: roundRobin(1_800, 180_000),
    columns: ["429s per call"],
  },
];
