import { Limiter } from "../../wt-old/src/index.js";
import { createProvider } from "../../wt-old/src/testing/index.js";
import { onVirtualTime } from "../examples/demo/virtual-time.js";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let seed = 7; const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const D = Number(process.argv[2] ?? 200);
await onVirtualTime(() => ({ done: (async () => {
  const provider = createProvider({ rpm: 600, tpm: 100_000, latencyMs: (c) => 300 + 10 * c.actual });
  const ls = [0, 1, 2].map(() => new Limiter({ rpm: 600, tpm: 100_000 }));
  const t0 = performance.now();
  const events: string[] = [];
  const iv = 0;
  await Promise.all(Array.from({ length: 1800 }, async (_, k) => {
    await sleep(k * 100);
    const l = ls[k % 3]!;
    await l.run(400, async (r) => {
      await sleep(rand() * D);
      const res = await provider.call({ prompt: 200, maxTokens: 200, actual: 100 });
      if (res.status === 429) { events.push(`${((performance.now() - t0) / 1000).toFixed(1)} c${k % 3} ${(res.body as any).error?.type}`); throw Object.assign(new Error("429"), { status: 429, headers: res.headers, error: (res.body as any).error }); }
      r.sync(res.headers);
      return { value: 1, used: 300 };
    }, { retry: { attempts: 20 } });
  }));
  clearInterval(iv);
  console.log(events.length, events.join(" | "));
  console.log("makespan", (performance.now() - t0) / 1000);
})() }), 1000, 3600_000);
