/**
 * The workloads: who calls, when, how large, and what quota the provider
 * really enforces versus what each client is told. Answer lengths are drawn
 * here (seeded), so every library meets the same calls and the same answers.
 */
import type { Dialect, WindowMode } from "../../src/testing/index.js";
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

export interface Workload {
  readonly id: string;
  readonly title: string;
  /** One sentence for the results file. */
  readonly summary: string;
  /** What the simulated provider enforces, and how it meters and reports it. */
  readonly provider: { readonly quota: Quota; readonly window: WindowMode; readonly dialect: Dialect };
  /** The quota each client is told (what its user believes). */
  readonly told: Quota;
  readonly clients: number;
  readonly jobs: readonly Job[];
  /** Whether the 429 share after the first simulated minute is reported (a target applies). */
  readonly lateShare: boolean;
}

type Size = Pick<Job, "prompt" | "maxTokens" | "actual">;

/** `count` jobs of `client` arriving evenly over `overMs`, sized by `size`. */
function stream(count: number, overMs: number, client: number, seed: number, size: (random: () => number) => Size): Job[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({ at: (i * overMs) / count, client, ...size(random) }));
}

const chat = (random: () => number): Size => ({ prompt: between(random, 100, 300), maxTokens: 256, actual: between(random, 20, 200) });
const longContext = (random: () => number): Size => ({ prompt: between(random, 6_000, 10_000), maxTokens: 512, actual: between(random, 100, 500) });
const overReserved = (random: () => number): Size => ({ prompt: between(random, 300, 700), maxTokens: 4_096, actual: between(random, 200, 400) });
const medium = (random: () => number): Size => ({ prompt: between(random, 1_000, 2_000), maxTokens: 500, actual: between(random, 200, 400) });

const CHAT_QUOTA: Quota = { rpm: 500, tpm: 1_000_000 };
const chatBurst = stream(2_000, 10_000, 0, 1, chat);

/** Three clients' streams merged in arrival order. */
function sharedKey(): Job[] {
  return [0, 1, 2].flatMap((client) => stream(600, 60_000, client, 10 + client, chat)).sort((a, b) => a.at - b.at);
}

export const workloads: readonly Workload[] = [
  {
    id: "1",
    title: "chat burst (RPM binds)",
    summary: "2,000 short chat calls (prompt 100–300, max_tokens 256, answers 20–200) arriving within 10 s; 500 RPM, 1M TPM.",
    provider: { quota: CHAT_QUOTA, window: "bucket", dialect: "openai" },
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    lateShare: false,
  },
  {
    id: "2",
    title: "long context above TPM",
    summary: "400 calls with 6k–10k-token prompts (max_tokens 512, answers 100–500), one a second: ~500k TPM offered to a 300k TPM key.",
    provider: { quota: { rpm: 500, tpm: 300_000 }, window: "bucket", dialect: "openai" },
    told: { rpm: 500, tpm: 300_000 },
    clients: 1,
    jobs: stream(400, 400_000, 0, 2, longContext),
    lateShare: false,
  },
  {
    id: "3",
    title: "max_tokens 4096, ~300-token answers",
    summary: "1,000 calls in the first minute, prompt 300–700, max_tokens 4096, answers 200–400: reserves ~6x what it uses; 500 RPM, 200k TPM.",
    provider: { quota: { rpm: 500, tpm: 200_000 }, window: "bucket", dialect: "openai" },
    told: { rpm: 500, tpm: 200_000 },
    clients: 1,
    jobs: stream(1_000, 60_000, 0, 3, overReserved),
    lateShare: false,
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
    lateShare: true,
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
    lateShare: true,
  },
  {
    id: "6",
    title: "chat burst, fixed-window provider",
    summary: "Workload 1 against a provider counting per clock-aligned minute (the run starts 25.5 s into one); OpenAI headers.",
    provider: { quota: CHAT_QUOTA, window: "fixed", dialect: "openai" },
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    lateShare: false,
  },
  {
    id: "7",
    title: "chat burst, Azure 10 s sub-windows",
    summary: "Workload 1 against a provider enforcing each per-minute limit as floor(limit / 6) per 10 s window; Azure headers (no reset).",
    provider: { quota: CHAT_QUOTA, window: "azure", dialect: "azure" },
    told: CHAT_QUOTA,
    clients: 1,
    jobs: chatBurst,
    lateShare: true,
  },
];
