import { Limiter } from "../src/index.js";
import { createProvider } from "../src/testing/index.js";
import { onVirtualTime } from "../examples/demo/virtual-time.js";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const N = Number(process.argv[2] ?? 30000), RPM = Number(process.argv[3] ?? 10000);
await onVirtualTime(() => ({ done: (async () => {
  const provider = createProvider({ rpm: RPM, tpm: 2_000_000, latencyMs: () => 700 });
  const limiter = new Limiter({});
  const t0 = performance.now();
  let r429 = 0; const kinds: Record<string, number> = {};
  const log = setInterval(() => { const s = limiter.snapshot() as any; console.log(((performance.now()-t0)/1000).toFixed(1), "rpm", JSON.stringify(s.rpm ?? s.requests), "q", s.queued, "inflight", s.inFlight, "429", r429, JSON.stringify(kinds)); }, 250);
  await Promise.all(Array.from({ length: N }, () => limiter.run(150, async (r) => {
    const res = await provider.call({ prompt: 50, maxTokens: 100, actual: 40 });
    if (res.status === 429) { r429++; const t = (res.body as any).error?.type ?? (res.body as any).error?.code; kinds[t] = (kinds[t] ?? 0) + 1; throw Object.assign(new Error("429"), { status: 429, headers: res.headers, error: (res.body as any).error }); }
    r.sync(res.headers);
    return { value: 1, used: 90 };
  }, { retry: { attempts: 20 } })));
  clearInterval(log);
  console.log("done", r429);
})() }), 250, 3600_000);
