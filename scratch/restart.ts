import { Limiter } from "../src/index.js";
import { createProvider } from "../src/testing/index.js";
import { onVirtualTime } from "../examples/demo/virtual-time.js";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
await onVirtualTime(() => ({ done: (async () => {
  const provider = createProvider({ rpm: 500, tpm: 1_000_000, latencyMs: (c) => 300 + 10 * c.actual });
  const t0 = performance.now();
  const ls: Limiter[] = [];
  const r429 = [0, 0];
  const iv = setInterval(() => console.log(((performance.now()-t0)/1000).toFixed(0), ls.map((l: any) => l.meters.map((m: any) => `${m.name} s=${m.share.toFixed(2)} h=${m.headroom.toFixed(2)} lvl=${l.store.level(m.name)?.toFixed(1)}`).join(" ")).join(" || "), r429), 2000);
  const job = (c: number) => async () => {
    const l = (ls[c] ??= new Limiter({ rpm: 500, tpm: 1_000_000, provider: "openai" }));
    await l.run(400, async (r) => {
      const res = await provider.call({ prompt: 200, maxTokens: 256, actual: 100 });
      if (res.status === 429) { r429[c]++; throw Object.assign(new Error("429"), { status: 429, headers: res.headers, error: (res.body as any).error }); }
      r.sync(res.headers);
      return { value: 1, used: 300 };
    }, { retry: { attempts: 20 } });
  };
  const all: Promise<void>[] = [];
  for (let i = 0; i < 500; i++) all.push(job(0)());
  await sleep(5000);
  for (let i = 0; i < 500; i++) all.push(job(1)());
  await Promise.all(all);
  clearInterval(iv);
  console.log("429s", r429, "makespan", (performance.now() - t0) / 1000);
})() }), 1000, 3600_000);
