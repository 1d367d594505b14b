import { createProvider } from "../src/testing/index.js";
import { onVirtualTime } from "../examples/demo/virtual-time.js";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
await onVirtualTime(() => ({ done: (async () => {
  const provider = createProvider({ rpm: 10000, tpm: 2_000_000, latencyMs: () => 700 });
  const first = await provider.call({ prompt: 50, maxTokens: 100, actual: 40 });
  console.log(first.headers);
  const res = await Promise.all(Array.from({ length: 10000 }, () => provider.call({ prompt: 50, maxTokens: 100, actual: 40 })));
  console.log(res.filter((r) => r.status === 429).length, res.find(r=>r.status===429)?.body);
})() }), 250, 3600_000);
