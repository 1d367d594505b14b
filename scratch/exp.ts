import { Limiter, type LimiterOptions } from "../src/index.js";
import { createProvider, type ProviderOptions } from "../src/testing/index.js";
import { onVirtualTime } from "../examples/demo/virtual-time.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

interface Job { at: number; prompt: number; maxTokens: number; actual: number; client?: number }
interface Exp { name: string; quota: ProviderOptions; limiter: LimiterOptions; clients?: number; jobs: Job[]; delayMaxMs: number; latency?: (a: number) => number; perClient?: (i: number) => LimiterOptions; boundMs?: number }

async function run(e: Exp) {
  seed = 7;
  return onVirtualTime(() => ({ done: (async () => {
    const provider = createProvider({ ...e.quota, latencyMs: (c) => (e.latency ?? ((a) => 300 + 10 * a))(c.actual) });
    const limiters = Array.from({ length: e.clients ?? 1 }, (_, i) => new Limiter({ ...e.limiter, ...(e.perClient?.(i) ?? {}) }));
    const t0 = performance.now();
    let r429 = 0, firstResponses = 0, late429 = 0, last = 0;
    const admitTimes: number[] = [];
    await Promise.all(e.jobs.map(async (job, k) => {
      await sleep(job.at);
      const limiter = limiters[job.client ?? k % limiters.length]!;
      await limiter.run(job.prompt + job.maxTokens, async (r) => {
        admitTimes.push(performance.now() - t0);
        await sleep(rand() * e.delayMaxMs);
        const res = await provider.call({ prompt: job.prompt, maxTokens: job.maxTokens, actual: job.actual });
        if (res.status === 429) { r429++; if (firstResponses >= 5) late429++; throw Object.assign(new Error("429"), { status: 429, headers: res.headers, error: (res.body as any).error }); }
        firstResponses++;
        r.sync(res.headers);
        last = performance.now() - t0;
        return { value: 1, used: job.prompt + job.actual };
      }, { retry: { attempts: 20 } });
    }));
    const after60 = admitTimes.filter((t) => t >= 60_000).length;
    return { name: e.name, calls: e.jobs.length, r429, late429, makespanS: +(last / 1000).toFixed(1), after60, span: +((Math.max(...admitTimes) - 60000) / 60000).toFixed(2) };
  })() }), 1000, 6 * 3600_000);
}

const burst = (n: number, p: number, m: number, a: number): Job[] => Array.from({ length: n }, () => ({ at: 0, prompt: p, maxTokens: m, actual: a }));
const exps: Record<string, Exp> = {
  quick: { name: "quick start 300 at once, rpm120 tpm40k, delay 500", quota: { rpm: 120, tpm: 40_000 }, limiter: { rpm: 120, tpm: 40_000, provider: "openai" }, jobs: burst(300, 100, 100, 50), delayMaxMs: 500 },
  quick0: { name: "quick start, delay 0", quota: { rpm: 120, tpm: 40_000 }, limiter: { rpm: 120, tpm: 40_000, provider: "openai" }, jobs: burst(300, 100, 100, 50), delayMaxMs: 0 },
  nothing: { name: "nothing configured, high tier 10k rpm, burst 30k", quota: { rpm: 10_000, tpm: 2_000_000 }, limiter: {}, jobs: burst(30_000, 50, 100, 40), delayMaxMs: 300 },
  told10x0: { name: "told 10x, D=0", quota: { rpm: 10 }, limiter: { rpm: 100, arrivalDelayMs: 0 }, jobs: burst(20, 10, 10, 5), delayMaxMs: 0 },
  told10x: { name: "told rpm 100, provider 10, 20 calls", quota: { rpm: 10 }, limiter: { rpm: 100 }, jobs: burst(20, 10, 10, 5), delayMaxMs: 0 },
  told10xlong: { name: "told rpm 100, provider 10, 60 calls", quota: { rpm: 10 }, limiter: { rpm: 100 }, jobs: burst(60, 10, 10, 5), delayMaxMs: 0 },
  three: { name: "3 limiters full quota each, steady", quota: { rpm: 600, tpm: 100_000 }, limiter: { rpm: 600, tpm: 100_000 }, clients: 3, jobs: Array.from({ length: 1800 }, (_, i) => ({ at: i * 100, prompt: 200, maxTokens: 200, actual: 100 })), delayMaxMs: 200 },
};
const which = process.argv.slice(2);
for (const k of which.length ? which : Object.keys(exps)) console.log(JSON.stringify(await run(exps[k]!)));
