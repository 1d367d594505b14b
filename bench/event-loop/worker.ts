/**
 * One run of bench/event-loop.ts, in a process of its own (a fresh app): `job.calls` chat completions sent at once
 * through one limiter with the real `openai` SDK, either as `limiter.fetch()` (the SDK's default retries) or as the
 * README's manual form (`limiter.run` with `reservation.sync`, the SDK's retries off). Sends a {@link LagReport}.
 */
import OpenAI from "openai";
import { Limiter } from "../../src/index.js";
import type { LagJob, LagReport } from "./messages.js";

const job = JSON.parse(process.argv[2] ?? "{}") as LagJob;
const PROMPT = "Write one sentence about the sea. ".repeat(8);
const MAX_TOKENS = 64;
/** About 4 characters a token, as the README's manual form suggests without a tokenizer. */
const PROMPT_TOKENS = Math.ceil(PROMPT.length / 4);

const limiter = new Limiter({ rpm: job.rpm, tpm: job.tpm, ...(job.providerGiven && { provider: "openai" }) });
const baseURL = `${job.url}/v1`;
const messages = [{ role: "user" as const, content: PROMPT }];

let widestAllowanceMs: number | undefined;
function sample(): void {
  const allowance = (limiter.snapshot() as { arrivalAllowanceMs?: number }).arrivalAllowanceMs;
  if (allowance !== undefined) widestAllowanceMs = Math.max(widestAllowanceMs ?? 0, allowance);
}

function viaFetch(): () => Promise<unknown> {
  const openai = new OpenAI({ baseURL, apiKey: "sk-bench", fetch: limiter.fetch() });
  return () => openai.chat.completions.create({ model: "gpt-4o-mini", messages, max_tokens: MAX_TOKENS });
}

function viaRun(): () => Promise<unknown> {
  const openai = new OpenAI({ baseURL, apiKey: "sk-bench", maxRetries: 0 });
  return () =>
    limiter.run(
      PROMPT_TOKENS + MAX_TOKENS,
      async (reservation) => {
        const { data, response } = await openai.chat.completions
          .create({ model: "gpt-4o-mini", messages, max_tokens: MAX_TOKENS }, { signal: reservation.signal })
          .withResponse();
        reservation.sync(response.headers);
        return { value: data, used: data.usage?.total_tokens };
      },
      { retry: { attempts: 3 } },
    );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let cause = "";
  for (let inner: unknown = error.cause; inner instanceof Error; inner = inner.cause) {
    const code = (inner as { code?: unknown }).code;
    cause += ` (cause: ${inner.name}: ${inner.message}${code === undefined ? "" : `, ${String(code)}`})`;
  }
  return `${error.name}: ${error.message}${cause}`;
}

/** CPU time this process has used, user and system. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const call = job.form === "fetch" ? viaFetch() : viaRun();
const started = performance.now();
const settled = await Promise.allSettled(Array.from({ length: job.calls }, () => call().finally(sample)));
const report: LagReport = {
  makespanMs: performance.now() - started,
  cpuMs: cpuMs(),
  failed: settled.filter((s) => s.status === "rejected").length,
  errors: [...new Set(settled.flatMap((s) => (s.status === "rejected" ? [describe(s.reason)] : [])))].slice(0, 5),
  widestAllowanceMs,
};
await limiter.close();
process.send!(report);
process.disconnect();
